import AsyncHTTPClient
import ChatCore
import ChatCrypto
import ChatStore
import ChatSync
import Foundation

/// Secret chats (issue 49): one text message sealed by one device and
/// opened by another, each a store transaction as in the client (goal
/// under 1 ms), next to the bare ratchet; and a secret chat's sends/s from
/// one client next to an open chat's in the same run, on a server in this
/// process (goal at least half).
struct SecretBench: Sendable {
    var sends = 300
    var crypto = 1000

    func run() async throws -> [BenchRow] {
        print("secret: \(sends) sends each way, \(crypto) seal + open…")
        return try await withServer(.sqlite, name: "secret", connections: 8) { base, http in
            try await measure(base: base, http: http)
        }
    }

    static func ms(since start: DispatchTime) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6 }

    private func measure(base: String, http: HTTPClient) async throws -> [BenchRow] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-secret-stores-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try await APIClient(baseURL: base, http: http).register(account: "secret_a", password: "secret-password")
        let b = try await APIClient(baseURL: base, http: http).register(account: "secret_b", password: "secret-password")
        let apiA = APIClient(baseURL: base, token: a.token, http: http), apiB = APIClient(baseURL: base, token: b.token, http: http)
        let storeA = try ChatStore(path: dir.appendingPathComponent("a/chat.sqlite").path, myUid: a.uid)
        let storeB = try ChatStore(path: dir.appendingPathComponent("b/chat.sqlite").path, myUid: b.uid)
        let channelA = SecretChannel(api: apiA, store: storeA)
        try await channelA.ensureKeys(deviceId: a.sessionId)
        try await SecretChannel(api: apiB, store: storeB).ensureKeys(deviceId: b.sessionId)
        let secret = try await apiA.startSecret(userId: b.uid).conversationId
        let open = ConversationIDHelper.make(myUid: a.uid, targetUid: b.uid)

        // Warm both paths (the first secret send claims keys and starts the session).
        _ = try await apiA.send(SendMessageRequest(recvID: open, content: "hi", contentType: ContentType.text, clientMsgId: UUID().uuidString))
        _ = try await channelA.send(SecretPlaintext(contentType: ContentType.text, content: "hi"), to: secret,
                                    clientMsgID: UUID().uuidString, outer: .init(), deviceId: a.sessionId)
        var start = DispatchTime.now()
        for n in 0..<sends {
            _ = try await apiA.send(SendMessageRequest(recvID: open, content: "明文 \(n)", contentType: ContentType.text,
                                                       clientMsgId: UUID().uuidString))
        }
        let openPerSecond = Double(sends) / (Self.ms(since: start) / 1000)
        start = DispatchTime.now()
        for n in 0..<sends {
            _ = try await channelA.send(SecretPlaintext(contentType: ContentType.text, content: "密文 \(n)"), to: secret,
                                        clientMsgID: UUID().uuidString, outer: .init(), deviceId: a.sessionId)
        }
        let secretPerSecond = Double(sends) / (Self.ms(since: start) / 1000)

        // B's device reads what came (its sessions answer A's), then one message at a time: seal in A's store, open in B's.
        var cursor = 0
        while true {
            let page = try await apiB.sync(since: cursor, limit: 1000)
            cursor = max(cursor, page.cursor)
            _ = try storeB.apply(events: page.events, cursor: cursor)
            if !page.hasMore { break }
        }
        let devices = try storeA.secretDeviceList(imUid: b.imUid)
        guard let bDevice = devices.first else { throw ServerBench.BenchError(description: "B has no device") }
        let recipient = SecretRecipient(imUid: b.imUid, deviceId: bDevice.deviceId, identityKey: bDevice.identityKey)
        let plaintext = SecretPlaintext(contentType: ContentType.text, content: "一条普通长度的消息，带一点 emoji 🙂").jsonData
        start = DispatchTime.now()
        for n in 0..<crypto {
            let id = "bench-\(n)"
            let outer = SecretOuter(conversationId: secret, clientMsgID: id,
                                    sender: SecretWire.envelopeKey(imUid: a.imUid, deviceId: a.sessionId ?? ""), kind: "msg")
            let envelopes = try storeA.sealSecret(plaintext, outer, for: [recipient])
            let wire = WireMessage(serverMsgID: "s\(n)", clientMsgID: id, conversationId: secret, seq: 100_000 + n, sendID: a.imUid,
                                   recvID: b.imUid, contentType: SecretWire.contentType,
                                   content: SecretPayload(from: a.sessionId ?? "", class: "msg", envelopes: envelopes).jsonText,
                                   sendTime: 1_800_000_000_000 + n)
            cursor += 1
            _ = try storeB.apply(events: [.message(wire)], cursor: cursor)
        }
        let storeMs = Self.ms(since: start) / Double(crypto)
        guard try storeB.message(clientMsgID: "bench-\(crypto - 1)")?.contentType == ContentType.text else {
            throw ServerBench.BenchError(description: "B's store did not open the bench's messages")
        }
        let bareMs = try Self.bareRatchet(plaintext, count: crypto)
        print("secret: open \(fmt(openPerSecond))/s, secret \(fmt(secretPerSecond))/s; seal + open \(fmt(storeMs)) ms (bare \(fmt(bareMs)) ms)")
        return [
            BenchRow(figure: "secret text: seal in one store + open in another (ms per message)", ours: storeMs,
                     reference: bareMs, referenceName: "the ratchet alone", goal: "< 1 ms", met: storeMs < 1),
            BenchRow(figure: "secret chat sends/s, one client, sequential", ours: secretPerSecond,
                     reference: openPerSecond, referenceName: "open chat, same run", goal: "≥ 0.5×",
                     met: secretPerSecond >= 0.5 * openPerSecond),
        ]
    }

    /// Encrypt + decrypt with two sessions and no store.
    static func bareRatchet(_ plaintext: Data, count: Int) throws -> Double {
        let alice = DeviceKeys.generate(oneTime: 1)
        var bob = DeviceKeys.generate(oneTime: 1)
        let (secret, ad, start) = try X3DH.initiate(alice, with: bob.bundle(oneTimePrekeyId: bob.oneTimePublic.first?.id))
        var sender = try RatchetSession.initiator(secret: secret, remoteRatchetKey: bob.signedPrekeyPublic.key)
        let (theirs, _) = try X3DH.respond(&bob, to: start)
        var receiver = RatchetSession.responder(secret: theirs, keys: bob)
        let begin = DispatchTime.now()
        for _ in 0..<count {
            let (header, ciphertext) = try sender.encrypt(plaintext, ad: ad)
            _ = try receiver.decrypt(header: header, ciphertext: ciphertext, ad: ad)
        }
        return ms(since: begin) / Double(count)
    }
}

import ChatCore
import ChatCrypto
import Foundation
import Testing
@testable import ChatStore

/// SplitMix64: the same seed gives the same run, so a failure replays.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The server's part of secret chats for the stores alone: each device's
/// public keys, and one-time prekeys handed out once (few of them, so they run out).
final class FakeKeyServer {
    var uploads: [String: DeviceKeysUpload] = [:]

    func add(_ key: String, _ upload: DeviceKeysUpload, keepingPrekeys: Int) {
        var kept = upload
        kept.oneTimePrekeys = Array(upload.oneTimePrekeys.prefix(keepingPrekeys))
        uploads[key] = kept
    }

    func claim(_ key: String) -> PrekeyBundle? {
        guard var u = uploads[key], let identity = Data(base64Encoded: u.identityKey),
              let signing = Data(base64Encoded: u.signingKey), let spk = Data(base64Encoded: u.signedPrekey.key),
              let signature = Data(base64Encoded: u.signedPrekey.signature) else { return nil }
        let otk = u.oneTimePrekeys.isEmpty ? nil : u.oneTimePrekeys.removeFirst()
        uploads[key] = u
        return PrekeyBundle(identityKey: identity, signingKey: signing, signedPrekey: PublicPrekey(id: u.signedPrekey.id, key: spk),
                            signature: signature,
                            oneTimePrekey: otk.flatMap { p in Data(base64Encoded: p.key).map { PublicPrekey(id: p.id, key: $0) } })
    }
}

/// PROTOCOL.md v4's promise under a bad network: 3 users with 3 devices
/// each write to each other while messages are reordered, duplicated,
/// held back and delivered late, devices go offline, and one-time prekeys
/// run out; every message ends readable on every device that existed when
/// it was sent. The stores do the cryptography as in the client (one
/// transaction per seal or open); only the server is a fake.
@Suite struct SecretFaultTests {
    struct Device {
        let uid: Int
        let id: String
        let store: ChatStore
        var imUid: String { ConversationIDHelper.imUid(uid) }
        var key: String { SecretWire.envelopeKey(imUid: imUid, deviceId: id) }
    }

    struct Sent {
        let wire: WireMessage
        let text: String
        let readers: [String]
    }

    static func seal(_ text: String, from d: Device, to peer: Int, devices: [Device], server: FakeKeyServer,
                     id: String, seq: Int) throws -> Sent {
        let conversationId = ConversationIDHelper.secret(myUid: d.uid, targetUid: peer)
        let targets = devices.filter { ($0.uid == peer || $0.uid == d.uid) && $0.key != d.key }
        var recipients = try targets.map { t -> SecretRecipient in
            let identity = try #require(server.uploads[t.key].flatMap { Data(base64Encoded: $0.identityKey) })
            return SecretRecipient(imUid: t.imUid, deviceId: t.id, identityKey: identity)
        }
        let outer = SecretOuter(conversationId: conversationId, clientMsgID: id, sender: d.key, kind: "msg")
        let plaintext = SecretPlaintext(contentType: ContentType.text, content: text).jsonData
        let envelopes: [String: SecretEnvelope]
        do {
            envelopes = try d.store.sealSecret(plaintext, outer, for: recipients)
        } catch SecretVaultError.needsBundles(let keys) {
            for i in recipients.indices where keys.contains(recipients[i].envelopeKey) {
                recipients[i].bundle = server.claim(recipients[i].envelopeKey)
            }
            envelopes = try d.store.sealSecret(plaintext, outer, for: recipients)
        }
        let payload = SecretPayload(from: d.id, class: "msg", envelopes: envelopes)
        let wire = WireMessage(serverMsgID: "s\(seq)", clientMsgID: id, conversationId: conversationId, seq: seq, sendID: d.imUid,
                               recvID: ConversationIDHelper.imUid(peer), contentType: SecretWire.contentType,
                               content: payload.jsonText, sendTime: 1_800_000_000_000 + seq)
        return Sent(wire: wire, text: text, readers: targets.map(\.key))
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func everyMessageEndsReadableOnEveryDevice(seed: UInt64) throws {
        var rng = SeededRandom(state: seed)
        let dir = tempDir()
        let server = FakeKeyServer()
        var devices: [Device] = []
        for uid in 1...3 {
            for n in 1...3 {
                let id = "d\(uid)\(n)"
                let store = try ChatStore(path: dir.appendingPathComponent("\(id)/chat.sqlite").path, myUid: uid)
                let upload = try #require(try store.secretKeysToUpload(deviceId: id))
                try store.markSecretKeysUploaded()
                let device = Device(uid: uid, id: id, store: store)
                // Two one-time prekeys each: the other eight devices' first messages exhaust them.
                server.add(device.key, upload, keepingPrekeys: 2)
                devices.append(device)
            }
        }
        var inbox: [String: [WireMessage]] = [:]
        var sent: [Sent] = []
        var seqs: [String: Int] = [:]
        var cursor = 0
        func deliver(_ d: Device, count: Int) throws {
            var queue = inbox[d.key] ?? []
            queue.shuffle(using: &rng)
            let now = Array(queue.prefix(count))
            inbox[d.key] = Array(queue.dropFirst(count))
            for w in now {
                cursor += 1
                _ = try d.store.apply(events: [.message(w)], cursor: cursor)
            }
        }
        for round in 0..<90 {
            let d = devices[Int.random(in: 0..<devices.count, using: &rng)]
            let peer = [1, 2, 3].filter { $0 != d.uid }.randomElement(using: &rng)!
            let conversation = ConversationIDHelper.secret(myUid: d.uid, targetUid: peer)
            seqs[conversation, default: 0] += 1
            let message = try Self.seal("第\(round)条 from \(d.key)", from: d, to: peer, devices: devices, server: server,
                                        id: "m\(seed)-\(round)", seq: seqs[conversation]!)
            sent.append(message)
            for reader in message.readers {
                inbox[reader, default: []].append(message.wire)
                // Duplicated now and then.
                if Int.random(in: 0..<5, using: &rng) == 0 { inbox[reader, default: []].append(message.wire) }
            }
            // Some devices are online and take part of what waits for them, in any order; the rest wait (late).
            for r in devices where Int.random(in: 0..<3, using: &rng) == 0 {
                try deliver(r, count: Int.random(in: 0...3, using: &rng))
            }
        }
        for d in devices { try deliver(d, count: Int.max) }
        var unread: [String] = []
        for m in sent {
            for reader in m.readers {
                let store = try #require(devices.first { $0.key == reader }).store
                let got = try store.message(clientMsgID: m.wire.clientMsgID)
                if got?.contentType != ContentType.text || got?.content != m.text { unread.append("\(m.wire.clientMsgID)@\(reader)") }
            }
        }
        #expect(unread.isEmpty, "not readable: \(unread.prefix(10)) (\(unread.count) of \(sent.reduce(0) { $0 + $1.readers.count }))")
    }
}

/// The envelope layouts of docs/protocol.md, byte for byte.
@Suite struct SecretLayoutTests {
    @Test func theAssociatedDataLinesAndThePrekeyStart() throws {
        let outer = SecretOuter(conversationId: "ss_tb_1_tb_2", clientMsgID: "c-1", sender: "tb_1:aa", kind: "msg",
                                expireAt: 1763800060, flash: false, blobs: ["chat/blob/x.bin", "chat/blob/y.bin"])
        #expect(String(decoding: outer.binding(receiver: "tb_2:bb"), as: UTF8.self)
            == "Tongban secret v1\nss_tb_1_tb_2\nc-1\ntb_1:aa\ntb_2:bb\nmsg\n1763800060\n\nchat/blob/x.bin,chat/blob/y.bin")
        let start = X3DH.Start(identityKey: Data(repeating: 1, count: 32), baseKey: Data(repeating: 2, count: 32),
                               signedPrekeyId: 3, oneTimePrekeyId: nil)
        let bytes = SecretVault.encode(start)
        #expect(bytes.count == 72 && bytes.suffix(8) == Data([0, 0, 0, 3, 0, 0, 0, 0]), "no one-time prekey is id 0")
        #expect(SecretVault.decodeStart(bytes) == start)
    }
}

/// The full-screen client and a command in another terminal share one
/// store: two connections to it seal at once for the same device, and every
/// message still opens (a message key used twice would not).
@Suite struct SecretSharedStoreTests {
    @Test func twoWritersOfOneStoreNeverReuseAMessageKey() async throws {
        let dir = tempDir()
        let path = dir.appendingPathComponent("mei/chat.sqlite").path
        let first = try ChatStore(path: path, myUid: 1)
        let upload = try #require(try first.secretKeysToUpload(deviceId: "laptop"))
        try first.markSecretKeysUploaded()
        let second = try ChatStore(path: path, myUid: 1)
        let bob = try ChatStore(path: dir.appendingPathComponent("bob/chat.sqlite").path, myUid: 2)
        let bobUpload = try #require(try bob.secretKeysToUpload(deviceId: "phone"))
        let server = FakeKeyServer()
        server.add("tb_2:phone", bobUpload, keepingPrekeys: 5)
        _ = upload
        let identity = try #require(Data(base64Encoded: bobUpload.identityKey))
        var claimed = SecretRecipient(imUid: "tb_2", deviceId: "phone", identityKey: identity)
        claimed.bundle = server.claim("tb_2:phone")
        let recipient = claimed
        let conv = ConversationIDHelper.secret(myUid: 1, targetUid: 2)
        let plaintext = SecretPlaintext(contentType: ContentType.text, content: "同时").jsonData
        // The session starts once, then both connections seal at once.
        let opening = try first.sealSecret(plaintext, SecretOuter(conversationId: conv, clientMsgID: "m-0", sender: "tb_1:laptop",
                                                                  kind: "msg"), for: [recipient])
        let sealed = try await withThrowingTaskGroup(of: [(String, [String: SecretEnvelope])].self) { group in
            for (n, store) in [first, second].enumerated() {
                group.addTask {
                    try (0..<40).map { k in
                        let id = "m-\(n)-\(k)"
                        let outer = SecretOuter(conversationId: conv, clientMsgID: id, sender: "tb_1:laptop", kind: "msg")
                        return (id, try store.sealSecret(plaintext, outer, for: [recipient]))
                    }
                }
            }
            var all: [(String, [String: SecretEnvelope])] = [("m-0", opening)]
            for try await part in group { all += part }
            return all
        }
        var cursor = 0
        for (seq, (id, envelopes)) in sealed.enumerated() {
            let w = WireMessage(serverMsgID: "s\(seq)", clientMsgID: id, conversationId: conv, seq: seq + 1, sendID: "tb_1", recvID: "tb_2",
                                contentType: SecretWire.contentType,
                                content: SecretPayload(from: "laptop", class: "msg", envelopes: envelopes).jsonText, sendTime: 1_000 + seq)
            cursor += 1
            _ = try bob.apply(events: [.message(w)], cursor: cursor)
        }
        let unread = try sealed.filter { try bob.message(clientMsgID: $0.0)?.content != "同时" }.map(\.0)
        #expect(unread.isEmpty, "not opened: \(unread)")
    }
}

/// A reseal starts a new session with the device that could not open a
/// message; what that device already sent on the old session still opens.
@Suite struct SecretResealSessionTests {
    @Test func aFreshSessionKeepsTheOldOneForWhatIsOnItsWay() throws {
        let dir = tempDir()
        let a = try ChatStore(path: dir.appendingPathComponent("a/chat.sqlite").path, myUid: 1)
        let b = try ChatStore(path: dir.appendingPathComponent("b/chat.sqlite").path, myUid: 2)
        let server = FakeKeyServer()
        server.add("tb_1:a1", try #require(try a.secretKeysToUpload(deviceId: "a1")), keepingPrekeys: 5)
        server.add("tb_2:b1", try #require(try b.secretKeysToUpload(deviceId: "b1")), keepingPrekeys: 5)
        let conv = ConversationIDHelper.secret(myUid: 1, targetUid: 2)
        var seq = 0
        func send(_ text: String, from store: ChatStore, _ me: (String, String), to peer: (String, String),
                  fresh: Bool = false) throws -> WireMessage {
            seq += 1
            let key = SecretWire.envelopeKey(imUid: peer.0, deviceId: peer.1)
            let identity = try #require(server.uploads[key].flatMap { Data(base64Encoded: $0.identityKey) })
            var recipient = SecretRecipient(imUid: peer.0, deviceId: peer.1, identityKey: identity, fresh: fresh)
            if fresh { recipient.bundle = server.claim(key) }
            let id = "r-\(seq)"
            let outer = SecretOuter(conversationId: conv, clientMsgID: id, sender: SecretWire.envelopeKey(imUid: me.0, deviceId: me.1),
                                    kind: "msg")
            let plaintext = SecretPlaintext(contentType: ContentType.text, content: text).jsonData
            let envelopes: [String: SecretEnvelope]
            do {
                envelopes = try store.sealSecret(plaintext, outer, for: [recipient])
            } catch SecretVaultError.needsBundles {
                recipient.bundle = server.claim(key)
                envelopes = try store.sealSecret(plaintext, outer, for: [recipient])
            }
            return WireMessage(serverMsgID: "s\(seq)", clientMsgID: id, conversationId: conv, seq: seq, sendID: me.0, recvID: peer.0,
                               contentType: SecretWire.contentType,
                               content: SecretPayload(from: me.1, class: "msg", envelopes: envelopes).jsonText, sendTime: 1_000 + seq)
        }
        func deliver(_ w: WireMessage, to store: ChatStore) throws -> String? {
            _ = try store.apply(events: [.message(w)], cursor: w.seq)
            return try store.message(clientMsgID: w.clientMsgID)?.content
        }
        let (meA, meB) = (("tb_1", "a1"), ("tb_2", "b1"))
        #expect(try deliver(try send("一", from: a, meA, to: meB), to: b) == "一")
        #expect(try deliver(try send("二", from: b, meB, to: meA), to: a) == "二")
        let onItsWay = try send("三", from: b, meB, to: meA)
        // A seals again for B on a new session (as a reseal does); B takes it.
        #expect(try deliver(try send("重发", from: a, meA, to: meB, fresh: true), to: b) == "重发")
        #expect(try deliver(onItsWay, to: a) == "三", "sent on the old session before the new one: still opens")
        #expect(try deliver(try send("四", from: b, meB, to: meA), to: a) == "四")
        #expect(try deliver(try send("五", from: a, meA, to: meB), to: b) == "五")
    }
}

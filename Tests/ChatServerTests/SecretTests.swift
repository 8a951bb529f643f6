import ChatCore
import ChatCrypto
import Foundation
import Testing
@testable import ChatServer

extension API {
    /// Makes keys for this session and uploads them; returns them.
    @discardableResult
    func uploadKeys(_ keys: DeviceKeys = .generate(oneTime: 3)) async throws -> (DeviceKeys, Reply) {
        let r = try await send(.PUT, "/keys/device", body: try JSONEncoder().encode(Self.upload(keys)))
        return (keys, r)
    }

    static func upload(_ keys: DeviceKeys) -> DeviceKeysUpload {
        let spk = keys.signedPrekeyPublic
        return DeviceKeysUpload(identityKey: keys.identityPublic.base64EncodedString(),
                                signingKey: keys.signingPublic.base64EncodedString(),
                                signedPrekey: SignedPrekeyWire(id: spk.id, key: spk.key.base64EncodedString(),
                                                               signature: keys.signedPrekeySignature.base64EncodedString()),
                                oneTimePrekeys: keys.oneTimePublic.map { PrekeyWire(id: $0.id, key: $0.key.base64EncodedString()) })
    }

    func sendSecret(_ conv: String, _ payload: SecretPayload, id: String = UUID().uuidString) async throws -> Reply {
        try await post("/chat/message/send", SendMessageRequest(recvID: conv, content: payload.jsonText,
                                                                contentType: SecretWire.contentType, clientMsgId: id))
    }
}

/// PROTOCOL.md v4 "Secret chats" on the server: key rules, envelopes for
/// exactly the current devices, controls, disappearing messages, retry and
/// reseal; on SQLite and again on PostgreSQL.
@Suite(.serialized) struct SecretTests {
    static func envelope(_ auth: AuthResponse) -> String { SecretWire.envelopeKey(imUid: auth.imUid, deviceId: auth.sessionId ?? "") }
    static let sealed = SecretEnvelope(t: "msg", b: Data("ciphertext".utf8).base64EncodedString())

    @Test func keyUploadsFollowTheRules() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("key_a")
        let (b, ub) = try await server.user("key_b")
        let (keys, first) = try await a.uploadKeys()
        #expect(first.status == 204)
        #expect(try await a.get("/keys/count").decode(PrekeyCount.self).oneTimePrekeys == 3)
        // A signature that does not verify: 400.
        var bad = API.upload(.generate(oneTime: 1))
        bad.signedPrekey.signature = Data(repeating: 7, count: 64).base64EncodedString()
        #expect(try await b.send(.PUT, "/keys/device", body: JSONEncoder().encode(bad)).status == 400)
        // Another identity for the same session: 409; the same keys again add prekeys.
        #expect(try await a.uploadKeys(.generate(oneTime: 1)).1.status == 409)
        var more = keys
        _ = more.addOneTimePrekeys(2)
        #expect(try await a.uploadKeys(more).1.status == 204)
        #expect(try await a.get("/keys/count").decode(PrekeyCount.self).oneTimePrekeys == 5)
        // Claims hand each one-time prekey out once, then null.
        var claimed = Set<Int>()
        for _ in 0..<5 {
            let d = try await b.post("/keys/claim", KeyClaimRequest(userId: ua.uid)).decode(DevicesResponse.self).devices
            #expect(d.count == 1 && d[0].deviceId == ua.sessionId)
            if let id = d[0].oneTimePrekey?.id { #expect(claimed.insert(id).inserted, "prekey \(id) claimed twice") }
        }
        #expect(claimed.count == 5)
        let empty = try await b.post("/keys/claim", KeyClaimRequest(userId: ua.uid))
        #expect(empty.text.contains("\"oneTimePrekey\":null"), "a claim with none left says null: \(empty.text)")
        #expect(try await a.get("/keys/count").decode(PrekeyCount.self).oneTimePrekeys == 0)
        // Anyone's devices are readable; nobody else's prekeys are in them.
        let listed = try await b.get("/keys/devices?user_id=\(ua.uid)").decode(DevicesResponse.self).devices
        #expect(listed.map(\.identityKey) == [keys.identityPublic.base64EncodedString()] && listed[0].oneTimePrekey == nil)
        // A sixth device with keys: 409 too_many_devices.
        for i in 0..<4 {
            let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "key_a", password: "password-key_a"))
            let device = API(base: server.base, token: try login.decode(AuthResponse.self).token)
            #expect(try await device.uploadKeys().1.status == 204, "device \(i + 2)")
        }
        let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "key_a", password: "password-key_a"))
        let sixth = try await API(base: server.base, token: try login.decode(AuthResponse.self).token).uploadKeys().1
        #expect(sixth.status == 409 && sixth.errorCode == "too_many_devices")
        _ = ub
    }

    @Test func secretMessagesNeedAnEnvelopeForEveryCurrentDevice() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("sec_a")
        let (b, ub) = try await server.user("sec_b")
        // No keys yet: 409 no_devices.
        #expect(try await a.post("/secret/start", StartConversationRequest(userId: ub.uid)).errorCode == "no_devices")
        try await a.uploadKeys()
        try await b.uploadKeys()
        let started = try await a.post("/secret/start", StartConversationRequest(userId: ub.uid))
        let summary = try started.decode(ConversationSummary.self)
        let conv = ConversationIDHelper.secret(myUid: ua.uid, targetUid: ub.uid)
        #expect(summary.conversationId == conv && summary.secret == true)
        // Plain text into a secret chat, or ciphertext into an open one: 400.
        #expect(try await a.sendText(conv, "明文").status == 400)
        let open = conversationId(ua, ub)
        let misplaced = SecretPayload(from: ua.sessionId ?? "", class: "msg", envelopes: [Self.envelope(ub): Self.sealed])
        #expect(try await a.sendSecret(open, misplaced).status == 400)
        // From another device than the caller's own: 403.
        #expect(try await a.sendSecret(conv, SecretPayload(from: "someone-else", class: "msg",
                                                           envelopes: [Self.envelope(ub): Self.sealed])).status == 403)
        // b signs in on a second device with keys: an envelope for b's first device only is 409 with the whole set.
        let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "sec_b", password: "password-sec_b"))
        let ub2 = try login.decode(AuthResponse.self)
        let b2 = API(base: server.base, token: ub2.token)
        try await b2.uploadKeys()
        let id = UUID().uuidString
        let short = try await a.sendSecret(conv, misplaced, id: id)
        #expect(short.status == 409 && short.errorCode == "devices_changed")
        let devices = try short.decode(APIErrorBody.self).error.devices
        #expect(devices?[ub.imUid].map(Set.init) == [ub.sessionId ?? "", ub2.sessionId ?? ""])
        #expect(devices?[ua.imUid] == [ua.sessionId ?? ""])
        // Sealed for both of b's devices, same clientMsgId: delivered as sent, to both people.
        let full = SecretPayload(from: ua.sessionId ?? "", class: "msg",
                                 envelopes: [Self.envelope(ub): Self.sealed, Self.envelope(ub2): Self.sealed])
        #expect(try await a.sendSecret(conv, full, id: id).status == 200)
        let got = try await b2.syncEvents().compactMap { if case .message(let m) = $0 { m } else { nil } }
        #expect(got.count == 1 && SecretPayload.decode(got[0].content) == full && got[0].contentType == 300)
        // A control counts for nothing and does not become the preview.
        var control = full
        control.class = "ctl"
        #expect(try await a.sendSecret(conv, control).status == 200)
        let list = try await b.get("/chat/conversations").decode([ConversationSummary].self)
        let row = try #require(list.first { $0.conversationId == conv })
        #expect(row.unreadCount == 1 && row.lastMessage?.clientMsgID == id && row.secret == true)
        // Revoking works as in an open chat: a notice, and the ciphertext gone.
        let taken = UUID().uuidString
        #expect(try await a.sendSecret(conv, full, id: taken).status == 200)
        #expect(try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: taken)).status == 200)
        let revoked = try await b2.history(conv).messages.first { $0.clientMsgID == taken }
        #expect(revoked?.revoked == true && revoked?.content == "" && revoked?.expired == nil)
        // Edits, reactions and favourites travel inside: their endpoints answer 400.
        #expect(try await b.post("/chat/message/react", ReactRequest(conversationId: conv, clientMsgId: id, emoji: "👍", on: true)).status == 400)
        #expect(try await a.post("/chat/message/edit", EditRequest(conversationId: conv, clientMsgId: id, content: "x")).status == 400)
        #expect(try await b.post("/favorite/add", FavoriteAddRequest(conversationId: conv, clientMsgId: id)).status == 400)
        // A revoked device is no longer in the set, and everyone sharing a secret chat hears of it.
        #expect(try await b.post("/auth/sessions/revoke", RevokeSessionRequest(sessionId: ub2.sessionId ?? "")).status == 204)
        #expect(try await a.syncEvents().contains(.devices(userId: ub.imUid)))
        #expect(try await a.sendSecret(conv, full).errorCode == "devices_changed")
        let one = SecretPayload(from: ua.sessionId ?? "", class: "msg", envelopes: [Self.envelope(ub): Self.sealed])
        #expect(try await a.sendSecret(conv, one).status == 200)
    }

    @Test func disappearingMessagesAndRetryAndReseal() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("exp_a")
        let (b, ub) = try await server.user("exp_b")
        try await a.uploadKeys()
        try await b.uploadKeys()
        let conv = try await a.post("/secret/start", StartConversationRequest(userId: ub.uid)).decode(ConversationSummary.self).conversationId
        let blob = try await a.upload(Data("加密的图片".utf8), type: "application/octet-stream", kind: "chat_blob")
        #expect(blob.status == 201)
        let key = try blob.decode(UploadResponse.self).objectKey
        let now = clock.nowMs / 1000
        let timed = SecretPayload(from: ua.sessionId ?? "", class: "msg", blobs: [key], expireAt: now + 30,
                                  envelopes: [Self.envelope(ub): Self.sealed])
        let id = UUID().uuidString
        #expect(try await a.sendSecret(conv, timed, id: id).status == 200)
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] != nil,
                "a blob named in a message is readable by its peer")
        #expect(try server.running.service.secrets.sweepExpired() == 0, "not before its time")
        // b's device could not open it: a retry reaches a's devices.
        #expect(try await b.post("/secret/retry", SecretMessageRef(conversationId: conv, clientMsgId: id)).status == 204)
        #expect(try await a.syncEvents().contains(.secretRetry(conversationId: conv, clientMsgID: id, deviceId: Self.envelope(ub))))
        // Only a device that had an envelope may ask; only the sender's devices reseal.
        #expect(try await a.post("/secret/retry", SecretMessageRef(conversationId: conv, clientMsgId: id)).status == 403)
        let resealed = SecretEnvelope(t: "prekey", b: Data("again".utf8).base64EncodedString())
        let reseal = SecretResealRequest(conversationId: conv, clientMsgId: id, from: ua.sessionId ?? "",
                                         envelopes: [Self.envelope(ub): resealed])
        #expect(try await b.post("/secret/reseal", SecretResealRequest(conversationId: conv, clientMsgId: id, from: ub.sessionId ?? "",
                                                                       envelopes: [Self.envelope(ub): resealed])).status == 403)
        #expect(try await a.post("/secret/reseal", reseal).status == 204)
        let updates = try await b.syncEvents().compactMap { if case .messageUpdate(let m) = $0 { m } else { nil } }
        #expect(updates.last.flatMap { SecretPayload.decode($0.content) }?.envelopes[Self.envelope(ub)] == resealed)
        // Its time comes: blanked for both, the blob gone.
        clock.advance(ms: 31_000)
        #expect(try server.running.service.secrets.sweepExpired() == 1)
        let after = try await b.syncEvents().compactMap { if case .messageUpdate(let m) = $0 { m } else { nil } }
        #expect(after.last?.expired == true && after.last?.content == "")
        #expect(try await a.history(conv).messages.first { $0.clientMsgID == id }?.expired == true)
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] == nil)
        // One that arrives after its time is expired at once.
        let late = SecretPayload(from: ua.sessionId ?? "", class: "msg", expireAt: now,
                                 envelopes: [Self.envelope(ub): Self.sealed])
        let lateId = UUID().uuidString
        #expect(try await a.sendSecret(conv, late, id: lateId).status == 200)
        #expect(try await b.history(conv).messages.first { $0.clientMsgID == lateId }?.expired == true)
        // A flash image: the receiver marks it viewed and its blobs go.
        let flashBlob = try await a.upload(Data("闪照".utf8), type: "application/octet-stream", kind: "chat_blob")
            .decode(UploadResponse.self).objectKey
        let flash = SecretPayload(from: ua.sessionId ?? "", class: "msg", blobs: [flashBlob],
                                  envelopes: [Self.envelope(ub): Self.sealed], flash: true)
        let flashId = UUID().uuidString
        #expect(try await a.sendSecret(conv, flash, id: flashId).status == 200)
        let ref = SecretMessageRef(conversationId: conv, clientMsgId: flashId)
        #expect(try await a.post("/secret/flash-viewed", ref).status == 403)
        #expect(try await b.post("/secret/flash-viewed", ref).status == 204)
        #expect(try await a.history(conv).messages.first { $0.clientMsgID == flashId }?.flashViewed == true)
        #expect(try await a.post("/media/sign", SignRequest(objectKeys: [flashBlob])).decode(SignResponse.self).urls[flashBlob] == nil)
    }

    /// PROTOCOL.md v4: a device unseen for 90 days loses its keys, and those who share a secret chat hear of it.
    @Test func devicesUnseenForNinetyDaysLoseTheirKeys() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("old_a")
        let (b, ub) = try await server.user("old_b")
        try await a.uploadKeys()
        try await b.uploadKeys()
        _ = try await a.post("/secret/start", StartConversationRequest(userId: ub.uid))
        #expect(try server.running.service.keys.pruneStale() == 0, "nobody is old yet")
        clock.advance(ms: KeyService.unseenLimitMs + 60_000)
        #expect(try server.running.service.keys.pruneStale() == 2)
        #expect(try await a.get("/keys/devices?user_id=\(ub.uid)").decode(DevicesResponse.self).devices.isEmpty)
        #expect(try await a.syncEvents().contains(.devices(userId: ub.imUid)))
        #expect(try await a.post("/secret/start", StartConversationRequest(userId: ub.uid)).errorCode == "no_devices")
        _ = ua
    }

    /// The endpoints as an outsider, across a block, and the claim limit.
    @Test func outsidersBlocksAndTheClaimLimit() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("edge_a")
        let (b, ub) = try await server.user("edge_b")
        let (c, uc) = try await server.user("edge_c")
        for api in [a, b, c] { try await api.uploadKeys(.generate(oneTime: 30)) }
        let conv = try await a.post("/secret/start", StartConversationRequest(userId: ub.uid)).decode(ConversationSummary.self).conversationId
        let id = UUID().uuidString
        #expect(try await a.sendSecret(conv, SecretPayload(from: ua.sessionId ?? "", class: "msg",
                                                           envelopes: [Self.envelope(ub): Self.sealed]), id: id).status == 200)
        // Someone outside the chat: no sending, no retry, reseal or flash-viewed, no history.
        let ref = SecretMessageRef(conversationId: conv, clientMsgId: id)
        #expect(try await c.sendSecret(conv, SecretPayload(from: uc.sessionId ?? "", class: "msg",
                                                           envelopes: [Self.envelope(ub): Self.sealed])).status == 403)
        #expect(try await c.post("/secret/retry", ref).status == 403)
        #expect(try await c.post("/secret/flash-viewed", ref).status == 403)
        #expect(try await c.post("/secret/reseal", SecretResealRequest(conversationId: conv, clientMsgId: id, from: uc.sessionId ?? "",
                                                                       envelopes: [Self.envelope(ub): Self.sealed])).status == 403)
        #expect(try await c.get("/chat/messages?conversation_id=\(conv)").status == 403)
        // A block: no secret chat, no claim of the blocker's keys, no send.
        #expect(try await b.post("/block/add", UserIdRequest(userId: uc.uid)).status == 204)
        #expect(try await c.post("/secret/start", StartConversationRequest(userId: ub.uid)).errorCode == "blocked")
        #expect(try await c.post("/keys/claim", KeyClaimRequest(userId: ub.uid)).errorCode == "blocked")
        // Claims on one person are limited per hour: the 21st is 429.
        for n in 1...20 { #expect(try await c.post("/keys/claim", KeyClaimRequest(userId: ua.uid)).status == 200, "claim \(n)") }
        let limited = try await c.post("/keys/claim", KeyClaimRequest(userId: ua.uid))
        #expect(limited.status == 429 && limited.header("Retry-After") != nil)
        #expect(try await b.post("/keys/claim", KeyClaimRequest(userId: ua.uid)).status == 200, "per caller: others still may")
    }
}

import ChatCore
import Foundation

/// Secret chats (PROTOCOL.md v4): starting one, the checks of a ciphertext
/// send, retry and reseal of a message a device could not open, flash images
/// and disappearing messages. The server sees envelopes, never what is in them.
final class SecretService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let keys: KeyService
    let conversations: ConversationService
    let messages: MessageService
    let syncLog: SyncLogService
    let notices: CommitNotifier

    init(storage: any ChatStorage, config: ServerConfig, keys: KeyService, conversations: ConversationService,
         messages: MessageService, syncLog: SyncLogService, notices: CommitNotifier) {
        self.storage = storage; self.config = config; self.keys = keys; self.conversations = conversations
        self.messages = messages; self.syncLog = syncLog; self.notices = notices
    }

    /// `POST /secret/start`: the pair's `ss_` conversation (one per pair).
    func start(caller: Int, userId: Int) throws -> ConversationSummary {
        guard userId != caller else { throw APIFailure.invalid("you cannot start a secret chat with yourself") }
        guard userId > 0 else { throw APIFailure.invalid("user_id must be positive") }
        let id = ConversationIDHelper.secret(myUid: caller, targetUid: userId)
        let (summary, cursor) = try storage.write { tx -> (ConversationSummary, Int) in
            guard try tx.users.info(uid: userId) != nil else { throw APIFailure.notFound("no such user") }
            try KeyService.checkNotBlocked(caller, userId, in: tx)
            guard try !self.keys.devices(of: userId, in: tx).isEmpty else {
                throw APIFailure(.noDevices, "this user has no device with keys yet; they must sign in with a current client")
            }
            try self.conversations.ensure(id, caller: caller, peer: userId, in: tx)
            try tx.conversations.unhide(id, uid: caller)
            let s = try self.conversations.summary(id, for: caller, in: tx)
            return (s, try self.syncLog.append(.conversation(s), to: caller, in: tx))
        }
        notices.committed([caller: cursor])
        return summary
    }

    /// Deletes every disappearing message whose time has come; returns how many.
    @discardableResult
    func sweepExpired() throws -> Int {
        var total = 0
        while true {
            let now = config.clock.nowMs() / 1000
            let (count, cursors, objects) = try storage.write { tx -> (Int, [Int: Int], [String]) in
                let due = try tx.keys.expired(through: now, limit: 200)
                var cursors: [Int: Int] = [:], objects: [String] = []
                for id in due {
                    let (c, o) = try self.messages.expire(id, in: tx)
                    cursors.merge(c) { max($0, $1) }
                    objects += o
                }
                return (due.count, cursors, objects)
            }
            for key in objects { messages.objects.delete(key: key) }
            notices.committed(cursors)
            total += count
            if count < 200 { return total }
        }
    }

    /// A secret message of the conversation and the caller's part in it.
    private func secretMessage(_ ref: SecretMessageRef, caller: Int,
                               in tx: any StorageTransaction) throws -> (MessageRow, SecretPayload, peer: Int) {
        guard ConversationIDHelper.isSecret(ref.conversationId) else {
            throw APIFailure.invalid("conversation_id must be a secret chat (ss_)")
        }
        guard let peer = ConversationIDHelper.peerUid(in: ref.conversationId, myUid: caller) else {
            throw APIFailure.forbidden("you are not in this conversation")
        }
        guard let row = try tx.messages.message(in: ref.conversationId, clientMsgID: ref.clientMsgId),
              let payload = SecretPayload.decode(row.content) else {
            throw APIFailure.notFound("no secret message \(ref.clientMsgId.prefix(64)) in this conversation")
        }
        return (row, payload, peer)
    }

    /// `POST /secret/retry`: a device that had an envelope asks the sender's
    /// devices to seal the message for it again.
    func retry(caller: Int, token: String, _ ref: SecretMessageRef) throws {
        let cursors = try storage.write { tx -> [Int: Int] in
            let device = try KeyService.deviceId(uid: caller, token: token, in: tx)
            let (row, payload, _) = try self.secretMessage(ref, caller: caller, in: tx)
            let mine = SecretWire.envelopeKey(imUid: ConversationIDHelper.imUid(caller), deviceId: device)
            guard payload.envelopes[mine] != nil else {
                throw APIFailure.forbidden("this device had no envelope in that message")
            }
            let event = SyncEvent.secretRetry(conversationId: ref.conversationId, clientMsgID: ref.clientMsgId, deviceId: mine)
            return [row.senderUid: try self.syncLog.append(event, to: row.senderUid, in: tx)]
        }
        notices.committed(cursors)
    }

    /// `POST /secret/reseal`: a sender's device replaces envelopes of devices
    /// that had one (the first reseal of a device wins); the receivers get a
    /// `message_update`.
    func reseal(caller: Int, token: String, _ r: SecretResealRequest) throws {
        let cursors = try storage.write { tx -> [Int: Int] in
            let device = try KeyService.deviceId(uid: caller, token: token, in: tx)
            guard r.from == device else { throw APIFailure.forbidden("from must be this session's own device id") }
            let ref = SecretMessageRef(conversationId: r.conversationId, clientMsgId: r.clientMsgId)
            let (row, payload, peer) = try self.secretMessage(ref, caller: caller, in: tx)
            guard row.senderUid == caller else { throw APIFailure.forbidden("only the sender's devices reseal a message") }
            guard !r.envelopes.isEmpty, r.envelopes.count <= 2 * SecretWire.maxDevices else {
                throw APIFailure.invalid("envelopes must name 1-10 devices")
            }
            var updated = payload
            var resealed = payload.resealedBy ?? [:]
            for (key, envelope) in r.envelopes {
                guard payload.envelopes[key] != nil else {
                    throw APIFailure.forbidden("device \(key.prefix(80)) had no envelope in that message")
                }
                guard Data(base64Encoded: envelope.b) != nil, envelope.t == "prekey" || envelope.t == "msg" else {
                    throw APIFailure.invalid("an envelope must be {t: prekey|msg, b: base64}")
                }
                // The first reseal of a device's envelope wins; the others' envelopes keep their sender.
                guard resealed[key] == nil else { continue }
                updated.envelopes[key] = envelope
                resealed[key] = device
            }
            guard resealed != (payload.resealedBy ?? [:]) else { return [:] }
            updated.resealedBy = resealed
            try tx.messages.setContent(id: row.id, updated.jsonText)
            return try self.messages.announceUpdate(of: row.id, target: .single(peer: peer), caller: caller, in: tx)
        }
        notices.committed(cursors)
    }

    /// `POST /secret/flash-viewed`: the receiver saw a flash image; its blobs go.
    func flashViewed(caller: Int, _ ref: SecretMessageRef) throws {
        let (cursors, objects) = try storage.write { tx -> ([Int: Int], [String]) in
            let (row, payload, peer) = try self.secretMessage(ref, caller: caller, in: tx)
            guard payload.flash == true else { throw APIFailure.invalid("that message is not a flash image") }
            guard row.senderUid != caller else { throw APIFailure.forbidden("only the receiver of a flash image can mark it viewed") }
            if row.flashViewed { return ([:], []) }
            try tx.messages.markFlashViewed(id: row.id)
            for key in payload.blobs ?? [] { try tx.media.markDestroyed(key) }
            let cursors = try self.messages.announceUpdate(of: row.id, target: .single(peer: peer), caller: caller, in: tx)
            return (cursors, payload.blobs ?? [])
        }
        for key in objects { messages.objects.delete(key: key) }
        notices.committed(cursors)
    }
}

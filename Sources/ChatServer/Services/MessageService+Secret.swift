import ChatCore
import Foundation

/// A secret send's checks and bookkeeping (PROTOCOL.md v4 "Secret chats"):
/// the server checks the envelopes' addresses, never what is in them.
extension MessageService {
    /// Edits, reactions, favourites and forwards of a secret chat travel
    /// inside its ciphertext (PROTOCOL.md v4): their endpoints answer 400.
    static func refuseSecret(_ conversationId: String, _ what: String) throws {
        if ConversationIDHelper.isSecret(conversationId) {
            throw APIFailure.invalid("\(what) in a secret chat travel inside its encrypted messages")
        }
    }

    /// The current devices of both people as `devices_changed` lists them.
    static func deviceMap(_ sets: [(uid: Int, devices: [DeviceKeyRow])]) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: sets.map { (ConversationIDHelper.imUid($0.uid), $0.devices.map(\.deviceId)) })
    }

    /// The checks of a secret send inside its transaction: sent from the
    /// caller's own device, one envelope for each current device of both
    /// people but the sending one, blobs the caller uploaded.
    func checkSend(caller: Int, peer: Int, device: String, _ p: SecretPayload, in tx: any StorageTransaction) throws {
        guard p.from == device else { throw APIFailure.forbidden("from must be this session's own device id") }
        let now = config.clock.nowMs()
        let mine = try KeyService.devices(of: caller, now: now, in: tx)
        let theirs = try KeyService.devices(of: peer, now: now, in: tx)
        guard mine.contains(where: { $0.deviceId == device }) else {
            throw APIFailure(.devicesChanged, "this device has no keys on the server; upload them first")
        }
        var expected = Set<String>()
        for (uid, set) in [(caller, mine), (peer, theirs)] {
            for d in set where !(uid == caller && d.deviceId == device) {
                expected.insert(SecretWire.envelopeKey(imUid: ConversationIDHelper.imUid(uid), deviceId: d.deviceId))
            }
        }
        guard Set(p.envelopes.keys) == expected else {
            var failure = APIFailure(.devicesChanged, "the devices of this chat changed: seal the message for the current set")
            failure.devices = Self.deviceMap([(caller, mine), (peer, theirs)])
            throw failure
        }
        for key in p.blobs ?? [] where try tx.media.uploader(of: key) != caller {
            throw APIFailure.forbidden("blob \(key.prefix(120)) is not one you uploaded")
        }
    }

    /// After a secret message was appended: its blobs readable by both, its
    /// time noted (or, if it already passed, the message expired at once).
    func noteSent(_ row: MessageRow, _ p: SecretPayload, target: ConversationService.Target, caller: Int,
                  in tx: any StorageTransaction) throws -> [Int: Int] {
        for key in p.blobs ?? [] { try tx.media.grant(key, conversationId: row.conversationId, messageId: row.id) }
        guard let expireAt = p.expireAt else { return [:] }
        if expireAt * 1000 <= config.clock.nowMs() {
            let (cursors, blobs) = try expire(row.id, in: tx)
            // Nobody can ever read them: they go even if this send rolls back.
            for key in blobs { objects.delete(key: key) }
            return cursors
        }
        try tx.keys.noteExpiry(messageId: row.id, expireAt: expireAt)
        return [:]
    }

    /// Blanks a disappearing message and deletes its blobs; returns the
    /// cursors of the `message_update` and the object keys to delete.
    func expire(_ messageId: Int64, in tx: any StorageTransaction) throws -> (cursors: [Int: Int], objects: [String]) {
        try tx.keys.forgetExpiry(messageId: messageId)
        guard let row = try tx.messages.message(id: messageId), !row.content.isEmpty,
              let peer = ConversationIDHelper.peerUid(in: row.conversationId, myUid: row.senderUid) else { return ([:], []) }
        let blobs = SecretPayload.decode(row.content)?.blobs ?? []
        for key in blobs { try tx.media.markDestroyed(key) }
        try tx.messages.setContent(id: messageId, "")
        try scrubLog(messageId: messageId, in: tx)
        let cursors = try announceUpdate(of: messageId, target: .single(peer: peer), caller: row.senderUid, in: tx)
        return (cursors, blobs)
    }


    /// A secret send's checks that need no write: the outer fields' form.
    func prepareSecretSend(caller: Int, token: String?, target: ConversationService.Target,
                           request r: SendMessageRequest) throws -> SendJob {
        guard ConversationIDHelper.isSecret(r.recvID), r.contentType == SecretWire.contentType else {
            throw APIFailure.invalid("a secret chat (ss_) takes contentType 300 only, and only a secret chat takes it")
        }
        guard r.receiveId?.isEmpty ?? true else { throw APIFailure.invalid("receive_id is not for secret chats") }
        guard let payload = SecretPayload.decode(r.content) else {
            throw APIFailure.invalid("content must be a secret message's JSON (v, from, class, envelopes)")
        }
        if let why = payload.problem { throw APIFailure.invalid(why) }
        // In-process callers (tests, tools) have no token: they speak for the device they name.
        let device = try token.map { token in
            try storage.read { tx in try KeyService.deviceId(uid: caller, token: token, in: tx) }
        } ?? payload.from
        return SendJob(caller: caller, target: target, request: r, payload: .text(""), serverMsgID: Self.newServerMsgID(),
                       secret: payload, device: device)
    }

    /// The write of a secret send (after the shared checks of `writeSend`).
    func writeSecretSend(_ job: SendJob, _ secret: SecretPayload, peer: Int, device: String,
                         in tx: any StorageTransaction) throws -> SendWrite {
        try checkSend(caller: job.caller, peer: peer, device: device, secret, in: tx)
        var cursors: [Int: Int] = [:]
        let row = try append(conversationId: job.request.recvID, sender: job.caller, to: .peer(peer),
                             clientMsgID: job.request.clientMsgId, contentType: SecretWire.contentType,
                             content: job.request.content, isControl: secret.isControl, in: tx, cursors: &cursors,
                             serverMsgID: job.serverMsgID)
        let expired = try noteSent(row, secret, target: job.target, caller: job.caller, in: tx)
        cursors.merge(expired) { max($0, $1) }
        // Expired on arrival: the answer is the blanked row.
        let stored = expired.isEmpty ? row : try tx.messages.message(id: row.id) ?? row
        return SendWrite(row: stored, cursors: cursors, isNew: true, destroyedKey: nil)
    }
}

import ChatCore
import Foundation

/// Sends: the checks that need no write, the write (alone or group-committed),
/// notices after the commit.
extension MessageService {
    /// A send that passed validation and waits for its write.
    struct SendJob: Sendable {
        let caller: Int
        let target: ConversationService.Target
        let request: SendMessageRequest
        let payload: MessageContent
        /// Made before the write: the writer's transaction does only what must be serial.
        let serverMsgID: String
        /// v4, a secret chat's ciphertext: its outer fields and the sending device.
        var secret: SecretPayload? = nil
        var device: String? = nil
    }

    /// What a committed send leaves to do after the commit.
    struct SendWrite: Sendable {
        let row: MessageRow
        let cursors: [Int: Int]
        let isNew: Bool
        let destroyedKey: String?
        /// A room's message: the users present, pushed it whole after the commit.
        var room: [Int]? = nil
    }

    /// Sends one message in its own transaction (the demo peers, tests).
    func send(caller: Int, token: String? = nil, request r: SendMessageRequest) throws -> SendMessageResponse {
        let job: SendJob
        do { job = try prepareSend(caller: caller, token: token, request: r) } catch {
            if let row = try alreadySent(caller: caller, request: r) { return Self.response(row) }
            throw error
        }
        let write = try storage.write { tx in try self.writeSend(job, in: tx) }
        if let key = write.destroyedKey { objects.delete(key: key) }
        notices.roomSendsCommitted([write])
        notices.sendsCommitted([write])
        return Self.response(write.row)
    }

    /// Sends one message through the group-commit writer: concurrent sends
    /// share one transaction (each in its own savepoint, so one bad send
    /// fails alone), and the request's task waits without holding a thread.
    func sendBatched(caller: Int, token: String? = nil, request r: SendMessageRequest) async throws -> SendMessageResponse {
        let job: SendJob
        do { job = try prepareSend(caller: caller, token: token, request: r) } catch {
            if let row = try alreadySent(caller: caller, request: r) { return Self.response(row) }
            throw error
        }
        let write = try await sendWriter.submit(job)
        return Self.response(write.row)
    }

    /// A resend of a message this caller already sent is answered with the
    /// stored one even when a check would now refuse it (its signal expired,
    /// a limit changed): the client must not be told "refused" for a
    /// message the peer has.
    func alreadySent(caller: Int, request r: SendMessageRequest) throws -> MessageRow? {
        guard !r.clientMsgId.isEmpty, r.clientMsgId.count <= 128 else { return nil }
        return try storage.read { tx in
            try tx.messages.messages(clientMsgID: r.clientMsgId, sentBy: caller, orIn: r.recvID)
                .first { $0.senderUid == caller && $0.conversationId == r.recvID }
        }
    }

    static func response(_ row: MessageRow) -> SendMessageResponse {
        SendMessageResponse(serverMsgID: row.serverMsgID, clientMsgID: row.clientMsgID, sendTime: row.sendTime, seq: row.seq)
    }

    /// The checks that need no write: a single chat's membership, content,
    /// signal reply. A group's membership is checked in the write.
    func prepareSend(caller: Int, token: String? = nil, request r: SendMessageRequest) throws -> SendJob {
        let conversationId = r.recvID
        let target = try ConversationService.target(of: conversationId, caller: caller)
        guard !r.clientMsgId.isEmpty, r.clientMsgId.count <= 128 else {
            throw APIFailure.invalid("clientMsgId must be 1-128 characters")
        }
        if ConversationIDHelper.isSecret(conversationId) || r.contentType == SecretWire.contentType {
            return try prepareSecretSend(caller: caller, token: token, target: target, request: r)
        }
        if r.content.utf8.count > config.maxJSONBytes {
            throw APIFailure(.tooLarge, "body is larger than \(config.maxJSONBytes) bytes")
        }
        let payload = try validateContent(type: r.contentType, content: r.content)
        switch target {
        case .single(let peer):
            if let receiveId = r.receiveId, !receiveId.isEmpty {
                try signals.checkReceiveId(receiveId, between: caller, and: peer)
            }
        case .group, .room:
            if MessageKinds.kind(of: payload).singleChatOnly {
                throw APIFailure.invalid("flash images and signal quotes are for single chats only")
            }
            if let receiveId = r.receiveId, !receiveId.isEmpty {
                throw APIFailure.invalid("receive_id is for single chats only")
            }
        }
        return SendJob(caller: caller, target: target, request: r, payload: payload, serverMsgID: Self.newServerMsgID())
    }

    /// The write of one send, inside the caller's transaction.
    func writeSend(_ job: SendJob, in tx: any StorageTransaction) throws -> SendWrite {
        let caller = job.caller, r = job.request, payload = job.payload
        let conversationId = r.recvID
        // One look-up for both rules: a retry of the caller's own send is
        // answered with the stored message, and the peer's clientMsgID must
        // not be taken over (the peer's client merges by it, revoke finds by it).
        let taken = try tx.messages.messages(clientMsgID: r.clientMsgId, sentBy: caller, orIn: conversationId)
        if let existing = taken.first(where: { $0.senderUid == caller }) {
            return SendWrite(row: existing, cursors: [:], isNew: false, destroyedKey: nil)
        }
        if !taken.isEmpty {
            throw APIFailure(.conflict, "clientMsgId is already used by another message in this conversation")
        }
        switch job.target {
        case .group, .room:
            _ = try conversations.activeMember(conversationId, uid: caller, in: tx)
        case .single(let peer):
            // A receipt of a flash image still goes through: it only ends the sender's own picture.
            if payload.flashViewedTarget == nil { try checkNotRefused(caller: caller, target: job.target, in: tx) }
            if let secret = job.secret, let device = job.device {
                return try writeSecretSend(job, secret, peer: peer, device: device, in: tx)
            }
        }
        let audience = try audience(of: conversationId, target: job.target, in: tx)
        let mentioned = try mentionedMembers(payload, caller: caller, target: job.target, audience: audience, in: tx)
        var cursors: [Int: Int] = [:]
        var isControl = false
        var flashTarget: MessageRow?
        var destroyedKey: String?
        if let targetId = payload.flashViewedTarget {
            guard let target = try tx.messages.message(in: conversationId, clientMsgID: targetId),
                  Self.kind(of: target).capabilities.contains(.ephemeral)
            else { throw APIFailure.notFound("no flash image \(targetId.prefix(64)) in this conversation") }
            guard target.senderUid != caller else {
                throw APIFailure.forbidden("only the receiver of a flash image can mark it viewed")
            }
            flashTarget = target
            isControl = true
        }
        // A reply stores the quote, and a merged forward its messages, as the
        // server has them, whatever the client said of them.
        var content = r.content
        var stored = payload
        if let reply = payload.quote {
            stored = .quote(try filledQuote(reply, in: conversationId, caller: caller, tx: tx))
            content = stored.quote?.jsonText ?? content
        } else if let record = payload.merged {
            stored = .merged(try filledRecord(record, caller: caller, tx: tx))
            content = stored.merged?.jsonText ?? content
        } else if let card = payload.card {
            stored = .card(try filledCard(card, in: tx))
            content = MessageKinds.customPayloadJSON(for: stored) ?? content
        }
        let keys = MessageKinds.objectKeys(in: stored)
        for key in keys where !(try tx.media.mayRead(key, uid: caller)) {
            throw APIFailure.forbidden("object \(key.prefix(120)) is not yours to send")
        }
        try checkFlashKeys(keys, sendingFlash: MessageKinds.kind(of: stored).capabilities.contains(.ephemeral), in: tx)
        let row = try append(conversationId: conversationId, sender: caller, to: audience, clientMsgID: r.clientMsgId,
                             contentType: r.contentType, content: content, isControl: isControl,
                             in: tx, cursors: &cursors, serverMsgID: job.serverMsgID)
        if !mentioned.isEmpty { try tx.conversations.noteMention(conversationId, seq: row.seq, uids: mentioned) }
        for key in keys {
            try tx.media.grant(key, conversationId: conversationId, messageId: row.id)
        }
        if let target = flashTarget, !target.flashViewed {
            try tx.messages.markFlashViewed(id: target.id)
            if let p = IMMessageMapper.decode(contentType: target.contentType, content: target.content).1.flashImage {
                try tx.media.markDestroyed(p.objectKey)
                destroyedKey = p.objectKey
            }
            try scrubLog(messageId: target.id, in: tx)
            cursors.merge(try announceUpdate(of: target.id, target: job.target, caller: caller, audience: audience, in: tx)) { $1 }
        }
        var write = SendWrite(row: row, cursors: cursors, isNew: true, destroyedKey: destroyedKey)
        if case .present(let uids) = audience { write.room = uids }
        return write
    }

    /// A flash image's picture belongs to the flash message it was first
    /// sent in (PROTOCOL.md v4): no other message may name it, and a flash
    /// image must be a picture no message named before (its viewing
    /// destroys the object, which another message would otherwise lose).
    func checkFlashKeys(_ keys: [String], sendingFlash: Bool, in tx: any StorageTransaction) throws {
        for key in keys {
            guard let first = try tx.media.firstMessage(naming: key) else { continue }
            if sendingFlash { throw APIFailure.invalid("a flash image must be a picture not sent before") }
            if let row = try tx.messages.message(id: first), Self.kind(of: row).capabilities.contains(.ephemeral) {
                throw APIFailure.invalid("a flash image's picture can be sent only in its own message")
            }
        }
    }

    /// A card as the server knows its person (PROTOCOL.md v4): a user who
    /// does not exist is 400, and name, account and picture are the server's.
    func filledCard(_ card: CardPayload, in tx: any StorageTransaction) throws -> CardPayload {
        guard let uid = card.uid, let user = try tx.users.info(uid: uid) else {
            throw APIFailure.invalid("the card's user \(card.userId.prefix(40)) does not exist")
        }
        return CardPayload(userId: ConversationIDHelper.imUid(uid), name: user.username, account: user.account ?? "",
                           avatar: user.avatar)
    }

    /// A reply with its quote filled in from the server's copy of the quoted
    /// message, which must be one of this conversation the sender can see
    /// and not revoked (400 otherwise).
    func filledQuote(_ reply: QuotePayload, in conversationId: String, caller: Int,
                     tx: any StorageTransaction) throws -> QuotePayload {
        guard let (target, _) = try inHistory(reply.quote.clientMsgID, of: conversationId, caller: caller, in: tx),
              Self.kind(of: target).capabilities.contains(.quotable) else {
            throw APIFailure.invalid("the quoted message is not one of this conversation you can see")
        }
        guard !target.revoked else { throw APIFailure.invalid("a revoked message cannot be quoted") }
        guard !(try tx.messages.hiders(of: target.id).contains(caller)) else {
            throw APIFailure.invalid("the quoted message is not one of this conversation you can see")
        }
        var filled = reply
        filled.quote = QuotePayload.Quoted(clientMsgID: target.clientMsgID, seq: target.seq, sendID: target.sendID,
                                           contentType: target.contentType)
        let (_, quoted) = IMMessageMapper.decode(contentType: target.contentType, content: target.content)
        if let text = quoted.text ?? quoted.mention?.text ?? quoted.quote?.text {
            filled.quote.text = String(text.prefix(QuotePayload.quotedTextLimit))
        } else if target.contentType == ContentType.custom {
            filled.quote.type = JSONObject(jsonText: target.content)?.string("type")
        }
        return filled
    }

    /// The most a merged forward's messages may weigh, nested records included.
    static let maxRecordBytes = 256 * 1024

    /// A merged forward with its messages filled in from the server's
    /// copies: each must be one the sender can see, neither revoked nor a
    /// flash image (400 otherwise).
    func filledRecord(_ record: MergedPayload, caller: Int, tx: any StorageTransaction) throws -> MergedPayload {
        var filled = record
        var names: [Int: String] = [:]
        var seen = Set<String>()
        var size = 0
        for (i, item) in record.items.enumerated() {
            guard seen.insert(item.conversationId + "\n" + item.clientMsgID).inserted else {
                throw APIFailure.invalid("message \(item.clientMsgID.prefix(64)) is in the record twice")
            }
            try Self.refuseSecret(item.conversationId, "merged forwards")
            _ = try ConversationService.target(of: item.conversationId, caller: caller)
            guard let (m, _) = try inHistory(item.clientMsgID, of: item.conversationId, caller: caller, in: tx) else {
                throw APIFailure.invalid("message \(item.clientMsgID.prefix(64)) is not one you can forward")
            }
            guard !m.revoked else { throw APIFailure.invalid("a revoked message cannot be forwarded") }
            guard Self.kind(of: m).capabilities.contains(.forwardable) else {
                throw APIFailure.invalid("message \(item.clientMsgID.prefix(64)) is of a kind that cannot be forwarded (a notice, a flash image)")
            }
            guard !(try tx.messages.hiders(of: m.id).contains(caller)) else {
                throw APIFailure.invalid("message \(item.clientMsgID.prefix(64)) is not one you can forward")
            }
            // A record inside a record is copied whole: the whole stays bounded.
            size += m.content.utf8.count
            guard size <= Self.maxRecordBytes else {
                throw APIFailure(.tooLarge, "a merged forward holds at most \(Self.maxRecordBytes / 1024) KiB of messages")
            }
            if names[m.senderUid] == nil { names[m.senderUid] = try tx.users.info(uid: m.senderUid)?.username ?? m.sendID }
            filled.items[i] = MergedPayload.Item(conversationId: m.conversationId, clientMsgID: m.clientMsgID, sendID: m.sendID,
                                                 senderName: names[m.senderUid], contentType: m.contentType, content: m.content,
                                                 sendTime: m.sendTime)
        }
        return filled
    }

    /// Who a mention names (never the sender): each named id must be in
    /// the audience (400), `@all` only from a group's owner (403).
    func mentionedMembers(_ payload: MessageContent, caller: Int, target: ConversationService.Target,
                          audience: Audience, in tx: any StorageTransaction) throws -> [Int] {
        guard let p = payload.mention ?? payload.quote?.mention else { return [] }
        let members = audience.uids(sender: caller)
        let inAudience = Set(members)
        var named: [Int] = []
        for id in p.atUserIDs {
            guard let uid = ConversationIDHelper.uid(fromImUid: id), inAudience.contains(uid) else {
                throw APIFailure.invalid("\(id.prefix(40)) is not a member of this conversation")
            }
            named.append(uid)
        }
        if p.atAll {
            guard case .group(let gid) = target, try tx.groups.group(gid)?.ownerUid == caller else {
                throw APIFailure.forbidden("only the group's owner may mention everyone")
            }
            named = members
        }
        return Array(Set(named)).filter { $0 != caller }.sorted()
    }

    /// Checks content against its kind (`MessageKinds.validate`); returns the decoded payload.
    func validateContent(type: Int, content: String) throws -> MessageContent {
        let limits = ContentLimits(maxTextCharacters: config.maxTextCharacters, maxMentions: config.maxGroupMembers)
        switch MessageKinds.validate(contentType: type, content: content, limits: limits) {
        case .success(let decoded): return decoded
        case .failure(.invalid(let why)): throw APIFailure.invalid(why)
        case .failure(.tooLarge(let why)): throw APIFailure(.tooLarge, why)
        }
    }
}

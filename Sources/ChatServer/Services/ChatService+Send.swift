import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

/// Sends: checks, the group-committed write, notices after the commit.
extension ChatService {
    /// Sends one message in its own transaction (the demo peers, tests).
    public func send(caller: Int, request r: SendMessageRequest) throws -> SendMessageResponse {
        let job = try prepareSend(caller: caller, request: r)
        let write = try db.write { db in try self.writeSend(job, db: db) }
        if let key = write.destroyedKey { media.delete(key: key) }
        finishSends([write])
        return Self.response(write.row)
    }

    /// Sends one message through the group-commit writer: concurrent sends
    /// share one transaction (each in its own savepoint, so one bad send
    /// fails alone), and the request's task waits without holding a thread.
    public func sendBatched(caller: Int, request r: SendMessageRequest) async throws -> SendMessageResponse {
        let job = try prepareSend(caller: caller, request: r)
        let write = try await sendWriter.submit(job)
        return Self.response(write.row)
    }

    static func response(_ row: MessageRow) -> SendMessageResponse {
        SendMessageResponse(serverMsgID: row.serverMsgID, clientMsgID: row.clientMsgID, sendTime: row.sendTime, seq: row.seq)
    }

    /// The checks that need no write: membership, content, signal reply.
    func prepareSend(caller: Int, request r: SendMessageRequest) throws -> SendJob {
        let conversationId = r.recvID
        let peer = try peer(of: conversationId, caller: caller)
        guard !r.clientMsgId.isEmpty, r.clientMsgId.count <= 128 else {
            throw APIFailure.invalid("clientMsgId must be 1-128 characters")
        }
        let payload = try validateContent(type: r.contentType, content: r.content)
        if let receiveId = r.receiveId, !receiveId.isEmpty {
            try checkReceiveId(receiveId, between: caller, and: peer)
        }
        return SendJob(caller: caller, peer: peer, request: r, payload: payload, serverMsgID: Self.newServerMsgID())
    }

    /// The write of one send, inside the caller's transaction.
    func writeSend(_ job: SendJob, db: Database) throws -> SendWrite {
        let caller = job.caller, peer = job.peer, r = job.request, payload = job.payload
        let conversationId = r.recvID
        // One look-up for both rules: a retry of the caller's own send is
        // answered with the stored message, and the peer's clientMsgID must
        // not be taken over (the peer's client merges by it, revoke finds by it).
        let taken = try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message WHERE (senderUid = ?1 AND clientMsgID = ?2) OR (conversationId = ?3 AND clientMsgID = ?2)
            """), arguments: [caller, r.clientMsgId, conversationId])
        if let existing = taken.first(where: { $0.senderUid == caller }) {
            return SendWrite(row: existing, cursors: [:], isNew: false, destroyedKey: nil)
        }
        if !taken.isEmpty {
            throw APIFailure(.conflict, "clientMsgId is already used by another message in this conversation")
        }
        var cursors: [Int: Int] = [:]
        var isControl = false
        var flashTarget: MessageRow?
        var destroyedKey: String?
        if case .flashViewed(let targetId) = payload {
            guard let target = try MessageRow.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM message WHERE conversationId = ? AND clientMsgID = ? AND isControl = 0
                """), arguments: [conversationId, targetId]),
                case .flashImage = IMMessageMapper.decode(contentType: target.contentType, content: target.content).1
            else { throw APIFailure.notFound("no flash image \(targetId.prefix(64)) in this conversation") }
            guard target.senderUid != caller else {
                throw APIFailure.forbidden("only the receiver of a flash image can mark it viewed")
            }
            flashTarget = target
            isControl = true
        }
        let keys = Self.objectKeys(in: payload)
        for key in keys where !(try mayRead(key: key, uid: caller, db: db)) {
            throw APIFailure.forbidden("object \(key.prefix(120)) is not yours to send")
        }
        let row = try append(conversationId: conversationId, sender: caller, peer: peer, clientMsgID: r.clientMsgId,
                             contentType: r.contentType, content: r.content, isControl: isControl,
                             db: db, cursors: &cursors, serverMsgID: job.serverMsgID)
        for key in keys {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO media_grant(objectKey, conversationId, messageId) VALUES (?, ?, ?)").execute(arguments: [key, conversationId, row.id])
        }
        if let target = flashTarget, !target.flashViewed {
            try db.cachedStatement(sql: "UPDATE message SET flashViewed = 1 WHERE id = ?").execute(arguments: [target.id])
            if case .flashImage(let p) = IMMessageMapper.decode(contentType: target.contentType, content: target.content).1 {
                try db.cachedStatement(sql: "UPDATE media SET destroyed = 1 WHERE objectKey = ?").execute(arguments: [p.objectKey])
                destroyedKey = p.objectKey
            }
            let updated = try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [target.id])!
            try scrubLog(messageId: target.id, db: db)
            for uid in [caller, peer] {
                cursors[uid] = try log(.messageUpdate(Self.wire(updated)), to: uid, messageId: target.id, db: db)
            }
        }
        return SendWrite(row: row, cursors: cursors, isNew: true, destroyedKey: destroyedKey)
    }

    /// After a commit that logged events: the users' sockets hear of their
    /// new log ends, and the checkpointer of the new WAL pages.
    func notifyCommitted(_ cursors: [Int: Int]) {
        hub.notify(cursors)
        checkpointer.committed()
    }

    /// After the commit: sockets hear of the new log end (one notice per
    /// user for the whole batch), the demo peers react.
    func finishSends(_ writes: [SendWrite]) {
        var cursors: [Int: Int] = [:]
        for w in writes { cursors.merge(w.cursors, uniquingKeysWith: max) }
        notifyCommitted(cursors)
        guard let hook = afterSend.withLock({ $0 }) else { return }
        for w in writes where w.isNew { hook.run(Self.wire(w.row)) }
    }

    /// Checks content against its type; returns the decoded payload.
    func validateContent(type: Int, content: String) throws -> MessageContent {
        switch type {
        case ContentType.text:
            if content.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
                throw APIFailure.invalid("content must not be empty")
            }
            // A character has at least one byte: short texts skip the count.
            if content.utf8.count > config.maxTextCharacters && content.count > config.maxTextCharacters {
                throw APIFailure(.tooLarge, "text is longer than \(config.maxTextCharacters) characters")
            }
            return .text(content)
        case ContentType.custom:
            guard let obj = JSONObject(jsonText: content), let t = obj.string("type"), !t.isEmpty else {
                throw APIFailure.invalid("content must be a JSON object with a string type")
            }
            let (_, decoded) = IMMessageMapper.decode(contentType: type, content: content)
            if MessageKinds.kind(customType: t) != nil, case .unknown = decoded {
                throw APIFailure.invalid("custom \(t) payload is missing fields or has wrong types")
            }
            for key in ["w", "h"] where obj.double(key) != nil && obj.dimension(key) == nil {
                throw APIFailure.invalid("\(key) must be a picture size between 0 and 65535")
            }
            if case .signalQuote(let p) = decoded, p.replyContent.count > config.maxTextCharacters {
                throw APIFailure(.tooLarge, "reply is longer than \(config.maxTextCharacters) characters")
            }
            return decoded
        case ContentType.revokeNotice:
            throw APIFailure.invalid("revoke notices are made by the server; use /chat/message/revoke")
        default:
            throw APIFailure.invalid("unknown contentType \(type)")
        }
    }

    /// The objects a message refers to, as its kind declares them.
    static func objectKeys(in payload: MessageContent) -> [String] { MessageKinds.objectKeys(in: payload) }

    func checkReceiveId(_ receiveId: String, between a: Int, and b: Int) throws {
        guard let id = Int(receiveId) else { throw APIFailure.invalid("receive_id must be a decimal number") }
        let ok = try db.read { db in
            try Int.fetchOne(db.cachedStatement(sql: """
                SELECT 1 FROM signal_reply r JOIN signal s ON s.id = r.signalId
                WHERE r.id = ? AND ((s.ownerUid = ? AND r.fromUid = ?) OR (s.ownerUid = ? AND r.fromUid = ?))
                """), arguments: [id, a, b, b, a]) != nil
        }
        guard ok else { throw APIFailure.forbidden("receive_id \(receiveId) is not a reply between you two") }
    }
}

import ChatCore
import Foundation
import Synchronization

/// Messages: storing them with the next seq, revoking, history pages. Sends
/// are in MessageService+Send.swift.
final class MessageService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let objects: MediaStore
    let conversations: ConversationService
    let syncLog: SyncLogService
    let signals: SignalService
    let notices: CommitNotifier
    /// Sends from requests, group-committed.
    let sendWriter: GroupCommitWriter<SendJob, SendWrite>

    init(storage: any ChatStorage, config: ServerConfig, objects: MediaStore, conversations: ConversationService,
         syncLog: SyncLogService, signals: SignalService, notices: CommitNotifier) {
        self.storage = storage
        self.config = config
        self.objects = objects
        self.conversations = conversations
        self.syncLog = syncLog
        self.signals = signals
        self.notices = notices
        sendWriter = GroupCommitWriter<SendJob, SendWrite>(storage: storage, label: "tongban.send-writer", maxBatch: 256)
        sendWriter.configure(body: { [unowned self] job, tx in try self.writeSend(job, in: tx) },
                             committed: { [objects] writes in
                                 // A viewed flash image's file is gone before the viewer hears "done".
                                 for key in writes.compactMap(\.destroyedKey) { objects.delete(key: key) }
                             },
                             finish: { [notices] writes in notices.sendsCommitted(writes) })
    }

    /// Stores a message with the conversation's next seq (creating the
    /// conversation the first time two people talk) and logs it to both members.
    func append(conversationId: String, sender: Int, peer: Int, clientMsgID: String, contentType: Int, content: String,
                isControl: Bool, in tx: any StorageTransaction, cursors: inout [Int: Int], sendTime: Int? = nil,
                serverMsgID: String? = nil) throws -> MessageRow {
        var seq = try tx.conversations.takeNextSeq(conversationId)
        if seq == nil {
            try conversations.ensure(conversationId, caller: sender, peer: peer, in: tx)
            seq = try tx.conversations.takeNextSeq(conversationId)
        }
        guard let seq else { throw APIFailure.notFound("no such conversation") }
        var row = MessageRow(id: 0, serverMsgID: serverMsgID ?? Self.newServerMsgID(), clientMsgID: clientMsgID,
                             senderUid: sender, conversationId: conversationId, seq: seq,
                             sendID: ConversationIDHelper.imUid(sender), recvID: ConversationIDHelper.imUid(peer),
                             contentType: contentType, content: content, sendTime: sendTime ?? config.clock.nowMs(),
                             isControl: isControl)
        row.id = try tx.messages.insert(row)
        // A new message shows a deleted conversation again, and sending reads what came before.
        try tx.conversations.noteAppended(conversationId, seq: seq, sender: sender, senderRead: !isControl)
        // One encoding serves both members' log entries.
        let body = try SyncLogService.encode(.message(row.wire))
        let (senderCursor, peerCursor) = try tx.syncLog.append(uids: sender, peer, messageId: row.id, body: body,
                                                               createdAt: config.clock.nowMs())
        cursors[sender] = senderCursor
        cursors[peer] = peerCursor
        return row
    }

    /// Message ids in time order (12 hex digits of milliseconds, then a
    /// counter and this process's random nonce): new rows land at the end of
    /// the id index instead of on a random page of it. Milliseconds and the
    /// counter keep one process's ids apart, the nonce two processes' (a
    /// restart within the same millisecond). Ids are not secrets: every
    /// endpoint checks membership. The nonce is drawn once: a random draw
    /// per id would be a `getrandom` system call on every send.
    static func newServerMsgID() -> String {
        let n = messageIDCounter.add(1, ordering: .relaxed).newValue
        return "m_" + hex(UInt64(ServerClock.system.nowMs()), 12) + hex(n & 0xFFFF_FFFF, 8) + messageIDNonce
    }
    private static let messageIDCounter = Atomic<UInt64>(0)
    private static let messageIDNonce = hex(UInt64.random(in: 0...UInt64(UInt32.max)), 8)
    private static func hex(_ v: UInt64, _ width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Replaces every logged copy of a message with its current state, so a
    /// revoked text is not kept in anyone's sync log.
    func scrubLog(messageId: Int64, in tx: any StorageTransaction) throws {
        guard let row = try tx.messages.message(id: messageId) else { return }
        let encoder = JSONEncoder()
        try tx.syncLog.rewrite(messageId: messageId, asMessage: try SyncLogService.encode(.message(row.wire)),
                               asUpdate: try SyncLogService.encode(.messageUpdate(row.wire)))
        // Conversation summaries logged earlier may carry it as lastMessage.
        let needle = "\"clientMsgID\":" + String(decoding: try encoder.encode(row.clientMsgID), as: UTF8.self)
        for entry in try tx.syncLog.unattachedEntries(containing: needle) {
            guard case .conversation(var summary)? = try? JSONDecoder().decode(SyncEvent.self, from: Data(entry.body.utf8)),
                  summary.lastMessage?.clientMsgID == row.clientMsgID, summary.conversationId == row.conversationId else { continue }
            summary.lastMessage = row.wire
            let body = String(decoding: try encoder.encode(SyncEvent.conversation(summary)), as: UTF8.self)
            try tx.syncLog.replaceBody(cursor: entry.cursor, with: body)
        }
    }

    /// Revokes the caller's message within the window: a notice takes the
    /// next seq, the text is emptied everywhere, its objects go back to
    /// their uploader only. Returns the notice's seq.
    func revoke(caller: Int, conversationId: String, clientMsgID: String) throws -> Int {
        let peer = try ConversationService.peer(of: conversationId, caller: caller)
        let (seq, cursors) = try storage.write { tx -> (Int, [Int: Int]) in
            _ = try self.conversations.member(conversationId, uid: caller, in: tx)
            guard let msg = try tx.messages.message(in: conversationId, clientMsgID: clientMsgID) else {
                throw APIFailure.notFound("no message \(clientMsgID.prefix(64)) in this conversation")
            }
            guard msg.senderUid == caller else { throw APIFailure.forbidden("only the sender can revoke a message") }
            if msg.revoked { return (msg.noticeSeq ?? msg.seq, [:]) }
            let ageMs = self.config.clock.nowMs() - msg.sendTime
            guard ageMs <= self.config.revokeWindowSeconds * 1000 else {
                throw APIFailure(.revokeWindowPassed, "messages can be revoked for \(self.config.revokeWindowSeconds) seconds after sending")
            }
            var cursors: [Int: Int] = [:]
            let notice = try self.append(
                conversationId: conversationId, sender: caller, peer: peer, clientMsgID: "revoke:" + msg.clientMsgID,
                contentType: ContentType.revokeNotice, content: Self.json(["clientMsgID": msg.clientMsgID]),
                isControl: true, in: tx, cursors: &cursors)
            try tx.messages.markRevoked(id: msg.id, noticeSeq: notice.seq)
            // Only the uploader can still read what was in a revoked message.
            try tx.media.revokeGrants(messageId: msg.id)
            try self.scrubLog(messageId: msg.id, in: tx)
            let updated = try tx.messages.message(id: msg.id)!
            for uid in [caller, peer] {
                cursors[uid] = try self.syncLog.append(.messageUpdate(updated.wire), to: uid, messageId: msg.id, in: tx)
            }
            return (notice.seq, cursors)
        }
        notices.committed(cursors)
        return seq
    }

    static func json(_ dict: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: dict, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A page of history above the caller's cleared seq: the newest (below
    /// `beforeSeq`) or the oldest after `afterSeq`.
    func history(caller: Int, conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) throws -> HistoryResponse {
        _ = try ConversationService.peer(of: conversationId, caller: caller)
        guard (1...100).contains(limit) else { throw APIFailure.invalid("limit must be 1-100") }
        return try storage.read { tx in
            let floor = try self.conversations.member(conversationId, uid: caller, in: tx).clearedSeq
            if let after = afterSeq {
                let rows = try tx.messages.messages(in: conversationId, after: max(after, floor), limit: limit + 1)
                return HistoryResponse(messages: rows.prefix(limit).map(\.wire), hasMore: rows.count > limit)
            }
            let rows = try tx.messages.messages(in: conversationId, above: floor, below: beforeSeq ?? Int.max, limit: limit + 1)
            return HistoryResponse(messages: rows.prefix(limit).reversed().map(\.wire), hasMore: rows.count > limit)
        }
    }
}

extension MessageRow {
    var wire: WireMessage {
        WireMessage(serverMsgID: serverMsgID, clientMsgID: clientMsgID, conversationId: conversationId, seq: seq,
                    sendID: sendID, recvID: recvID, contentType: contentType, content: content,
                    sendTime: sendTime, revoked: revoked, flashViewed: flashViewed)
    }
}

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
        sendWriter.configure(bulk: { [unowned self] jobs, tx in try self.writeSendBatch(jobs, in: tx) },
                             body: { [unowned self] job, tx in try self.writeSend(job, in: tx) },
                             committed: { [objects, notices] writes in
                                 // A viewed flash image's file is gone before the viewer hears "done".
                                 for key in writes.compactMap(\.destroyedKey) { objects.delete(key: key) }
                                 notices.roomSendsCommitted(writes)
                             },
                             finish: { [notices] writes in notices.sendsCommitted(writes) })
    }

    /// Who a new message is logged to.
    enum Audience {
        /// A single chat: the sender and the peer (the conversation is
        /// created the first time two people talk).
        case peer(Int)
        /// A group: these members (the sender among them), earliest joined first.
        case members([Int])
        /// A room: the users present (the sender among them). Nothing is
        /// logged: the message is pushed to them whole after the commit.
        case present([Int])
    }

    /// Stores a message with the conversation's next seq and logs it to its audience.
    func append(conversationId: String, sender: Int, to audience: Audience, clientMsgID: String, contentType: Int,
                content: String, isControl: Bool, in tx: any StorageTransaction, cursors: inout [Int: Int],
                sendTime: Int? = nil, serverMsgID: String? = nil) throws -> MessageRow {
        var seq = try tx.conversations.takeNextSeq(conversationId)
        if seq == nil, case .peer(let peer) = audience {
            try conversations.ensure(conversationId, caller: sender, peer: peer, in: tx)
            seq = try tx.conversations.takeNextSeq(conversationId)
        }
        guard let seq else { throw APIFailure.notFound("no such conversation") }
        var row = Self.newRow(conversationId: conversationId, sender: sender, to: audience, clientMsgID: clientMsgID,
                              contentType: contentType, content: content, isControl: isControl, seq: seq,
                              sendTime: sendTime ?? config.clock.nowMs(), serverMsgID: serverMsgID ?? Self.newServerMsgID())
        row.id = try tx.messages.insert(row)
        // A new message shows a deleted conversation again, and sending reads what came before.
        try tx.conversations.noteAppended(conversationId, seq: seq, sender: sender,
                                          senderRead: !isControl && !ContentType.isGroupNotice(contentType))
        // One encoding serves both logs of a single chat.
        let body = try SyncLogService.encode(.message(row.wire))
        let now = config.clock.nowMs()
        switch audience {
        case .peer(let peer):
            let (senderCursor, peerCursor) = try tx.syncLog.append(uids: sender, peer, messageId: row.id, body: body,
                                                                   createdAt: now)
            cursors[sender] = senderCursor
            cursors[peer] = peerCursor
        case .members(let uids):
            // Written once, to the group's timeline; the members are told its cursor.
            let cursor = try tx.syncLog.appendShared(conversationId: conversationId, messageId: row.id, body: body,
                                                     createdAt: now)
            for uid in uids { cursors[uid] = cursor }
        case .present:
            break
        }
        return row
    }

    /// A message about to be stored (its id comes from the insert).
    static func newRow(conversationId: String, sender: Int, to audience: Audience, clientMsgID: String, contentType: Int,
                       content: String, isControl: Bool, seq: Int, sendTime: Int, serverMsgID: String) -> MessageRow {
        let recvID: String
        switch audience {
        case .peer(let peer): recvID = ConversationIDHelper.imUid(peer)
        case .members, .present: recvID = conversationId
        }
        return MessageRow(id: 0, serverMsgID: serverMsgID, clientMsgID: clientMsgID, senderUid: sender,
                          conversationId: conversationId, seq: seq, sendID: ConversationIDHelper.imUid(sender),
                          recvID: recvID, contentType: contentType, content: content, sendTime: sendTime,
                          isControl: isControl)
    }

    /// The audience of a new message in `conversationId` (whose target is
    /// `target`), read inside the transaction that appends it.
    func audience(of conversationId: String, target: ConversationService.Target,
                  in tx: any StorageTransaction) throws -> Audience {
        switch target {
        case .single(let peer): return .peer(peer)
        case .group: return .members(try tx.conversations.activeMembers(conversationId))
        case .room(let rid): return .present(try tx.rooms.present(rid))
        }
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
        let key = SummaryKey.of(conversationId: row.conversationId, clientMsgID: row.clientMsgID)
        for entry in try tx.syncLog.summaries(of: key) {
            guard case .conversation(var summary)? = try? JSONDecoder().decode(SyncEvent.self, from: Data(entry.body.utf8)),
                  summary.lastMessage?.clientMsgID == row.clientMsgID, summary.conversationId == row.conversationId else { continue }
            summary.lastMessage = row.wire
            let body = String(decoding: try encoder.encode(SyncEvent.conversation(summary)), as: UTF8.self)
            try tx.syncLog.replaceBody(cursor: entry.cursor, with: body)
        }
    }

    /// Revokes a message: the sender's within the window, or any member's
    /// at any time by a group's owner. A notice takes the next seq, the text
    /// is emptied everywhere, its objects go back to their uploader only.
    /// Returns the notice's seq.
    func revoke(caller: Int, conversationId: String, clientMsgID: String) throws -> Int {
        let target = try ConversationService.target(of: conversationId, caller: caller)
        let (seq, cursors) = try storage.write { tx -> (Int, [Int: Int]) in
            let me = try self.conversations.member(conversationId, uid: caller, in: tx)
            guard let msg = try tx.messages.message(in: conversationId, clientMsgID: clientMsgID),
                  msg.seq > me.joinedSeq, msg.seq <= me.ceilingSeq else {
                throw APIFailure.notFound("no message \(clientMsgID.prefix(64)) in this conversation")
            }
            var byOwner = false
            if case .group(let gid) = target, me.isActive, msg.senderUid != caller {
                byOwner = try tx.groups.group(gid)?.ownerUid == caller
            }
            guard msg.senderUid == caller || byOwner else {
                throw APIFailure.forbidden("only the sender (or the group's owner) can revoke a message")
            }
            if case .group = target, !me.isActive {
                throw APIFailure.forbidden("you are no longer a member of this group")
            }
            guard Self.kind(of: msg).capabilities.contains(.revocable) else {
                throw APIFailure.invalid("notices cannot be revoked")
            }
            if msg.revoked { return (msg.noticeSeq ?? msg.seq, [:]) }
            let ageMs = self.config.clock.nowMs() - msg.sendTime
            guard byOwner || ageMs <= self.config.revokeWindowSeconds * 1000 else {
                throw APIFailure(.revokeWindowPassed, "messages can be revoked for \(self.config.revokeWindowSeconds) seconds after sending")
            }
            var cursors: [Int: Int] = [:]
            var noticeContent = ["clientMsgID": msg.clientMsgID]
            if case .group = target { noticeContent["revokerID"] = ConversationIDHelper.imUid(caller) }
            let audience = try self.audience(of: conversationId, target: target, in: tx)
            let notice = try self.append(
                conversationId: conversationId, sender: caller, to: audience, clientMsgID: "revoke:" + msg.clientMsgID,
                contentType: ContentType.revokeNotice, content: Self.json(noticeContent),
                isControl: true, in: tx, cursors: &cursors)
            try tx.messages.markRevoked(id: msg.id, noticeSeq: notice.seq)
            // Nobody keeps a copy of it any more; replies quoting it forget what it said.
            try tx.favorites.removeAll(messageId: msg.id)
            for reply in try tx.messages.replies(to: msg.clientMsgID, in: conversationId) {
                guard var p = QuotePayload(jsonText: reply.content) else { continue }
                p.quote.text = nil
                p.quote.type = nil
                p.quote.revoked = true
                try tx.messages.setContent(id: reply.id, p.jsonText)
                try self.scrubLog(messageId: reply.id, in: tx)
                cursors.merge(try self.announceUpdate(of: reply.id, target: target, caller: caller, audience: audience, in: tx)) { $1 }
            }
            // Only the uploader can still read what was in a revoked message.
            try tx.media.revokeGrants(messageId: msg.id)
            try self.scrubLog(messageId: msg.id, in: tx)
            cursors.merge(try self.announceUpdate(of: msg.id, target: target, caller: caller, audience: audience, in: tx)) { $1 }
            return (notice.seq, cursors)
        }
        notices.committed(cursors)
        if target.isRoom {
            let replies = (try? storage.read { tx in try tx.messages.replies(to: clientMsgID, in: conversationId) }) ?? []
            pushRoom(conversationId, updated: [clientMsgID] + replies.map(\.clientMsgID), newSeqs: [seq])
        }
        return seq
    }

    static func json(_ dict: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: dict, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A page of history above the caller's cleared seq: the newest (below
    /// `beforeSeq`) or the oldest after `afterSeq`.
    /// A group member's floor is the seq they joined after; a former
    /// member's ceiling the notice that took them out.
    func history(caller: Int, conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) throws -> HistoryResponse {
        _ = try ConversationService.target(of: conversationId, caller: caller)
        guard (1...100).contains(limit) else { throw APIFailure.invalid("limit must be 1-100") }
        return try storage.read { tx in
            let me = try self.conversations.member(conversationId, uid: caller, in: tx)
            let floor = max(me.clearedSeq, me.joinedSeq)
            let ceiling = me.leftSeq.map { $0 + 1 } ?? Int.max
            if let after = afterSeq {
                let rows = try tx.messages.messages(in: conversationId, after: max(after, floor), limit: limit + 1, for: caller)
                    .filter { $0.seq < ceiling }
                return HistoryResponse(messages: rows.prefix(limit).map(\.wire), hasMore: rows.count > limit)
            }
            let rows = try tx.messages.messages(in: conversationId, above: floor, below: min(beforeSeq ?? Int.max, ceiling),
                                                limit: limit + 1, for: caller)
            return HistoryResponse(messages: rows.prefix(limit).reversed().map(\.wire), hasMore: rows.count > limit)
        }
    }
}

extension MessageService.Audience {
    /// Everyone the message goes to.
    func uids(sender: Int) -> [Int] {
        switch self {
        case .peer(let peer): [sender, peer]
        case .members(let uids), .present(let uids): uids
        }
    }
}

extension MessageRow {
    var wire: WireMessage {
        var w = WireMessage(serverMsgID: serverMsgID, clientMsgID: clientMsgID, conversationId: conversationId, seq: seq,
                    sendID: sendID, recvID: recvID, contentType: contentType, content: content,
                    sendTime: sendTime, revoked: revoked, flashViewed: flashViewed,
                    // A revoked message forgets who reacted to it and when it was edited.
                    reactions: revoked || reactions.isEmpty ? nil : reactions, editedAt: revoked ? nil : editedAt)
        // A disappearing secret message whose time ran out keeps its row (its seq) with nothing in it.
        if contentType == SecretWire.contentType && content.isEmpty && !revoked { w.expired = true }
        return w
    }
}

extension MessageService {
    /// A stored message's kind: what it allows (MessageKind.Capabilities).
    static func kind(of row: MessageRow) -> MessageKind { MessageKinds.kind(contentType: row.contentType, content: row.content) }
}

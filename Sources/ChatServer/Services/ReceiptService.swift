import ChatCore
import Dispatch
import Synchronization

/// Typing and read receipts (PROTOCOL.md v4): what lives only on sockets
/// (`typing`, `read_changed`), the one-to-one `read` event, and a group
/// message's read counts and readers. A read writes the reader's own member
/// row and nothing per member: counts are worked out when asked for.
final class ReceiptService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let conversations: ConversationService
    let notices: CommitNotifier
    /// How long a typing frame holds (`ttlMs`).
    static let typingTTL = 5_000
    /// At most one `read_changed` per user and conversation this often.
    static let readChangedInterval = 2_000

    private struct Throttle {
        /// "uid conversationId" -> when the last frame went.
        var last: [String: Int] = [:]
        /// Keys with a frame waiting for the interval to pass.
        var waiting: Set<String> = []
    }
    private let throttle = Mutex(Throttle())

    init(storage: any ChatStorage, config: ServerConfig, conversations: ConversationService, notices: CommitNotifier) {
        self.storage = storage
        self.config = config
        self.conversations = conversations
        self.notices = notices
    }

    // MARK: Typing

    /// Tells the other participants' sockets that the caller is typing:
    /// nobody when the caller does not share typing, never across a block.
    func typing(caller: Int, conversationId: String) throws {
        let target = try ConversationService.target(of: conversationId, caller: caller)
        let to: [Int] = try storage.read { tx in
            let others: [Int]
            switch target {
            case .single(let peer):
                _ = try conversations.member(conversationId, uid: caller, in: tx)
                others = [peer]
            case .group:
                _ = try conversations.activeMember(conversationId, uid: caller, in: tx)
                others = try tx.conversations.activeMembers(conversationId).filter { $0 != caller }
            case .room:
                throw APIFailure.invalid("typing is for one-to-one chats and groups")
            }
            guard try tx.users.settings(uid: caller).shareTyping else { return [] }
            let apart = Set(try tx.people.blocked(by: caller)).union(try tx.people.blockers(of: caller))
            return others.filter { !apart.contains($0) }
        }
        notices.live(.typing(conversationId: conversationId, userId: ConversationIDHelper.imUid(caller), ttlMs: Self.typingTTL),
                     to: to)
    }

    // MARK: Reads

    /// Moves the caller's read seq forward (never back) and tells whom it concerns.
    func markRead(caller: Int, conversationId: String, seq: Int) throws -> ConversationSummary {
        guard seq >= 0 else { throw APIFailure.invalid("seq must not be negative") }
        if case .room = try ConversationService.target(of: conversationId, caller: caller) {
            throw APIFailure.invalid("rooms are not in the conversation list: nothing to pin, mute, read or clear")
        }
        let (summary, cursors, senders) = try storage.write { tx -> (ConversationSummary, [Int: Int], [Int]) in
            var m = try conversations.member(conversationId, uid: caller, in: tx)
            let before = m.readSeq
            let maxSeq = try tx.conversations.maxSeq(of: conversationId) ?? 0
            m.readSeq = max(m.readSeq, min(seq, maxSeq, m.ceilingSeq))
            try tx.conversations.update(m)
            var cursors: [Int: Int] = [:]
            let senders = try noteRead(m, from: before, to: m.readSeq, in: tx, cursors: &cursors)
            let s = try conversations.summary(conversationId, for: caller, in: tx)
            cursors[caller] = try conversations.syncLog.append(.conversation(s), to: caller, in: tx)
            return (s, cursors, senders)
        }
        notices.committed(cursors)
        readChanged(conversationId, senders: senders)
        return summary
    }

    /// What a read from `from` to `to` tells others, inside the read's
    /// transaction: in a one-to-one chat where both share reads, a `read`
    /// event in the peer's log when it passed a message of theirs (its
    /// cursor goes into `cursors`); in a group, the senders whose messages
    /// it passed (for `readChanged`).
    func noteRead(_ m: MemberRow, from: Int, to: Int, in tx: any StorageTransaction,
                  cursors: inout [Int: Int]) throws -> [Int] {
        guard to > from else { return [] }
        let id = m.conversationId
        if ConversationIDHelper.isGroup(id) {
            return try tx.messages.senders(in: id, after: from, upTo: to, notFrom: m.uid)
        }
        guard let peer = ConversationIDHelper.peerUid(in: id, myUid: m.uid),
              try tx.messages.unreadCount(in: id, after: from, upTo: to, notFrom: m.uid) > 0,
              try Self.sharesReads(m.uid, peer, in: tx) else { return [] }
        let event = SyncEvent.read(conversationId: id, userId: ConversationIDHelper.imUid(m.uid), seq: to)
        cursors[peer] = try conversations.syncLog.append(event, to: peer, in: tx)
        return []
    }

    /// Whether reads pass between the two (both share them; PROTOCOL.md: reciprocal).
    static func sharesReads(_ a: Int, _ b: Int, in tx: any StorageTransaction) throws -> Bool {
        try tx.users.settings(uid: a).shareRead && tx.users.settings(uid: b).shareRead
    }

    /// Tells `senders`' sockets that reads in `conversationId` passed their
    /// messages: at once, or when the interval since the last one passed.
    func readChanged(_ conversationId: String, senders: [Int]) {
        guard !senders.isEmpty else { return }
        let now = config.clock.nowMs()
        var due: [Int] = []
        var later: [(uid: Int, key: String, after: Int)] = []
        throttle.withLock { t in
            if t.last.count > 50_000 { t.last = t.last.filter { now - $0.value < Self.readChangedInterval } }
            for uid in senders {
                let key = "\(uid) \(conversationId)"
                if let last = t.last[key], now - last < Self.readChangedInterval {
                    if t.waiting.insert(key).inserted { later.append((uid, key, Self.readChangedInterval - (now - last))) }
                } else {
                    t.last[key] = now
                    t.waiting.remove(key)
                    due.append(uid)
                }
            }
        }
        notices.live(.readChanged(conversationId: conversationId), to: due)
        for w in later {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(w.after)) { [self] in
                let due = throttle.withLock { t -> Bool in
                    // A frame sent meanwhile (the clock moved on) already told them.
                    guard t.waiting.remove(w.key) != nil else { return false }
                    t.last[w.key] = config.clock.nowMs()
                    return true
                }
                if due { notices.live(.readChanged(conversationId: conversationId), to: [w.uid]) }
            }
        }
    }

    /// A group message's read and unread counts, for its sender: one read of
    /// the members' (uid, read seq, joined seq), then each seq counted over
    /// those integers.
    func readCounts(caller: Int, conversationId: String, seqs: [Int]) throws -> ReadCountsResponse {
        guard (1...100).contains(seqs.count) else { throw APIFailure.invalid("seqs must list 1-100 seqs") }
        return try storage.read { tx in
            try ownMessages(caller: caller, conversationId: conversationId, seqs: seqs, in: tx)
            let members = try tx.conversations.readStates(conversationId).filter { $0.uid != caller }
            var counts: [String: ReadCountsResponse.Count] = [:]
            for seq in Set(seqs) {
                var read = 0, there = 0
                for m in members where m.joinedSeq < seq {
                    there += 1
                    if m.readSeq >= seq { read += 1 }
                }
                counts[String(seq)] = .init(read: read, unread: there - read)
            }
            return ReadCountsResponse(counts: counts)
        }
    }

    /// Who read a group message of the caller's, and who has not.
    func readers(caller: Int, conversationId: String, seq: Int) throws -> ReadersResponse {
        try storage.read { tx in
            try ownMessages(caller: caller, conversationId: conversationId, seqs: [seq], in: tx)
            let there = try tx.conversations.readStates(conversationId).filter { $0.uid != caller && $0.joinedSeq < seq }
                .sorted { $0.uid < $1.uid }
            func infos(_ rows: [MemberReadState]) throws -> [UserBasicInfo] { try rows.compactMap { try tx.users.info(uid: $0.uid) } }
            return ReadersResponse(read: try infos(there.filter { $0.readSeq >= seq }), unread: try infos(there.filter { $0.readSeq < seq }))
        }
    }

    /// Checks that the caller sent every one of `seqs` in the group (403 for
    /// another's message, 404 for none).
    private func ownMessages(caller: Int, conversationId: String, seqs: [Int], in tx: any StorageTransaction) throws {
        guard ConversationIDHelper.isGroup(conversationId) else {
            throw APIFailure.invalid("read counts are for groups (sg_); one-to-one chats carry peerReadSeq")
        }
        _ = try conversations.member(conversationId, uid: caller, in: tx)
        let senders = try tx.messages.senders(in: conversationId, seqs: seqs)
        for seq in seqs {
            guard let sender = senders[seq] else { throw APIFailure.notFound("no message \(seq) in this group") }
            guard sender == caller else { throw APIFailure.forbidden("read counts are for your own messages only") }
        }
    }
}

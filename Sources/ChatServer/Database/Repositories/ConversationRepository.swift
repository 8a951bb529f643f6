/// One user's view of a conversation.
package struct MemberRow: Codable, Sendable {
    package var conversationId: String
    package var uid: Int
    package var isPinned: Bool
    package var readSeq: Int
    package var clearedSeq: Int
    package var hidden: Bool
    package var isImOpened: Bool
    package var isMuted: Bool = false
    /// The newest seq whose message mentioned this member.
    package var mentionSeq: Int = 0
    /// Groups: the member sees seqs above this one.
    package var joinedSeq: Int = 0
    /// Groups: Unix ms of joining (the earliest joined member inherits ownership).
    package var joinedAt: Int = 0
    /// Groups: the seq of the notice that took the member out; nil while a member.
    package var leftSeq: Int?

    package var isActive: Bool { leftSeq == nil }
    /// The highest seq this member may read.
    package var ceilingSeq: Int { leftSeq ?? Int.max }

    package init(conversationId: String, uid: Int, isPinned: Bool, readSeq: Int, clearedSeq: Int, hidden: Bool, isImOpened: Bool, isMuted: Bool = false, mentionSeq: Int = 0, joinedSeq: Int = 0, joinedAt: Int = 0, leftSeq: Int? = nil) {
        self.conversationId = conversationId; self.uid = uid; self.isPinned = isPinned; self.readSeq = readSeq; self.clearedSeq = clearedSeq; self.hidden = hidden; self.isImOpened = isImOpened; self.isMuted = isMuted; self.mentionSeq = mentionSeq; self.joinedSeq = joinedSeq; self.joinedAt = joinedAt; self.leftSeq = leftSeq
    }
}

/// Conversations (two members each, or a group's), their seq counters and
/// the members' views.
package protocol ConversationRepository {
    func exists(_ id: String) throws -> Bool
    /// Stores a conversation with `maxSeq` 0; nothing if it exists.
    func create(_ id: String, uidLow: Int, uidHigh: Int, createdAt: Int) throws
    /// Stores a member's view; nothing if it exists.
    func addMember(_ id: String, uid: Int, hidden: Bool) throws
    func member(_ id: String, uid: Int) throws -> MemberRow?
    func update(_ member: MemberRow) throws

    func maxSeq(of id: String) throws -> Int?
    func createdAt(of id: String) throws -> Int?
    /// Moves the conversation's `maxSeq` on by one and returns it; nil when
    /// there is no such conversation. The caller's transaction holds the
    /// conversation's counter until it ends.
    func takeNextSeq(_ id: String) throws -> Int?
    /// A message with `seq` was stored: a member who hid the conversation
    /// sees it again unless they cleared it at or past `seq`, and the
    /// sender's `readSeq` moves up to `seq` if `senderRead`.
    func noteAppended(_ id: String, seq: Int, sender: Int, senderRead: Bool) throws

    /// Makes `uid` a member of group conversation `id` from `joinedSeq` on
    /// (a former member's row is reused: their pin and clear point stay).
    func join(_ id: String, uid: Int, joinedSeq: Int, joinedAt: Int) throws
    /// Members who have not left, earliest joined first.
    func activeMembers(_ id: String) throws -> [Int]
    /// Up to `limit` members who have not left with a uid above `uid`, by uid.
    func activeMembers(_ id: String, afterUid uid: Int, limit: Int) throws -> [MemberRow]
    func activeMemberCount(_ id: String) throws -> Int
    /// Every member who has not left: uid, read seq and the seq they joined
    /// after (read receipts count over these, PROTOCOL.md v4).
    func readStates(_ id: String) throws -> [MemberReadState]
    /// Records that message `seq` mentioned `uids`.
    func noteMention(_ id: String, seq: Int, uids: [Int]) throws

    /// Ids of the conversations `uid` has not hidden.
    func visibleConversations(of uid: Int) throws -> [String]
    func unhide(_ id: String, uid: Int) throws
    /// Both members' `isImOpened`.
    func markOpened(_ id: String) throws
    /// The peers in `uid`'s single chats who have not hidden them.
    func visiblePeers(of uid: Int) throws -> [(conversationId: String, uid: Int)]
    /// v4: the people `uid` has a secret chat with (hidden or not).
    func secretPeers(of uid: Int) throws -> [Int]
    /// Everyone who shares a conversation with `uid`, except where either
    /// blocked the other (PROTOCOL.md v4: they do not see each other online).
    func contacts(of uid: Int) throws -> [Int]
}

/// A member's place in a group's reading (`ConversationRepository.readStates`).
package struct MemberReadState: Sendable, Equatable {
    package var uid: Int
    package var readSeq: Int
    package var joinedSeq: Int
    package init(uid: Int, readSeq: Int, joinedSeq: Int) { self.uid = uid; self.readSeq = readSeq; self.joinedSeq = joinedSeq }
}

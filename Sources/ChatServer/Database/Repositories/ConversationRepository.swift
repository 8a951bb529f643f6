/// One user's view of a conversation.
struct MemberRow: Codable, Sendable {
    var conversationId: String
    var uid: Int
    var isPinned: Bool
    var readSeq: Int
    var clearedSeq: Int
    var hidden: Bool
    var isImOpened: Bool
}

/// Conversations (two members each), their seq counters and the members' views.
protocol ConversationRepository {
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

    /// Ids of the conversations `uid` has not hidden.
    func visibleConversations(of uid: Int) throws -> [String]
    func unhide(_ id: String, uid: Int) throws
    /// Both members' `isImOpened`.
    func markOpened(_ id: String) throws
    /// The peers in `uid`'s conversations who have not hidden them.
    func visiblePeers(of uid: Int) throws -> [(conversationId: String, uid: Int)]
    /// Everyone who shares a conversation with `uid`.
    func contacts(of uid: Int) throws -> [Int]
}

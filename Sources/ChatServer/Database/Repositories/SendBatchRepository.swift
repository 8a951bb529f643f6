/// A send's effect on one member row: the conversation shows again unless
/// cleared past `shownSeq`, and the sender has read up to `readSeq`.
package struct MemberAppendNote: Sendable {
    package let conversationId: String
    package let uid: Int
    /// The newest seq the batch appended to the conversation.
    package let shownSeq: Int
    /// The newest seq this member sent in the batch, if any.
    package let readSeq: Int?

    /// The uid of a note about every member who hid the conversation (a group's).
    package static let everyHidden = 0
}

/// A single chat a batch makes: its two people and its first member rows
/// (`ConversationService.firstMembers`).
package struct NewSingleChat: Sendable {
    package let id: String
    package let caller: Int
    package let peer: Int
    package let members: [(uid: Int, hidden: Bool)]
}

/// One sync-log entry of a batch: a user's, or (uid 0) a group timeline's.
package struct LogEntry: Sendable {
    package let uid: Int
    package let messageId: Int64
    package let body: String
    /// The group whose timeline a uid-0 entry is in.
    package var conversationId: String? = nil
}

/// A whole batch of sends in a handful of statements, for a backend where
/// every statement costs a round trip (`MessageService.writeSendBatch`).
/// Each method does for all items what the one-item methods of the other
/// repositories do for one.
package protocol SendBatchRepository {
    /// Messages that a (sender, clientMsgID) or (conversation, clientMsgID) of `keys` names.
    func messages(matching keys: [(clientMsgID: String, sender: Int, conversationId: String)]) throws -> [MessageRow]
    /// The (sender, receiver) pairs of `pairs` whose receiver refuses the
    /// sender's single chats (`PeopleRepository.refuses`).
    func refused(_ pairs: [(sender: Int, receiver: Int)]) throws -> [(sender: Int, receiver: Int)]
    /// Each group's active members, earliest joined first (`ConversationRepository.activeMembers`).
    func activeMembers(of conversationIds: [String]) throws -> [String: [Int]]
    /// Makes each single chat of `chats` that does not exist yet and whose
    /// peer does, with its member rows, as `ConversationService.ensure`
    /// makes one; returns the ids made.
    func createSingles(_ chats: [NewSingleChat], createdAt: Int) throws -> Set<String>
    /// Takes `count` seqs in each conversation; returns each existing one's new `max_seq`.
    func takeSeqs(_ counts: [(conversationId: String, count: Int)]) throws -> [String: Int]
    /// Stores the rows; returns their ids in the same order.
    func insert(_ rows: [MessageRow]) throws -> [Int64]
    /// A note with uid `MemberAppendNote.everyHidden` is about each member of its conversation who hid it.
    func noteAppended(_ notes: [MemberAppendNote]) throws
    /// Logs the entries; returns their cursors in the same order.
    func append(_ entries: [LogEntry], createdAt: Int) throws -> [Int]
}

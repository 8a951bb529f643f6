/// A reply in a signal owner's inbox.
package struct SignalReplyRow: Sendable {
    package var id: Int
    package var signalId: Int
    package var signalContent: String
    package var replyContent: String
    package var fromUid: Int
    package var isImOpened: Bool

    package init(id: Int, signalId: Int, signalContent: String, replyContent: String, fromUid: Int, isImOpened: Bool) {
        self.id = id; self.signalId = signalId; self.signalContent = signalContent; self.replyContent = replyContent; self.fromUid = fromUid; self.isImOpened = isImOpened
    }
}

/// Signals (open questions to everyone) and the replies to them.
package protocol SignalRepository {
    /// Stores a signal; returns its id.
    func insertSignal(owner: Int, content: String, createdAt: Int) throws -> Int
    func owner(ofSignal id: Int) throws -> Int?
    /// Stores a reply; returns its id.
    func insertReply(signalId: Int, from: Int, content: String, createdAt: Int) throws -> Int
    /// The newest `limit` replies to `owner`'s signals, newest first.
    func inbox(owner: Int, limit: Int) throws -> [SignalReplyRow]
    /// Who wrote the reply and who owns the signal it answers.
    func parties(ofReply id: Int) throws -> (from: Int, owner: Int)?
    func markOpened(reply id: Int) throws
    /// Whether `id` is a reply by one of the two to a signal of the other.
    func isReply(_ id: Int, between a: Int, and b: Int) throws -> Bool
}

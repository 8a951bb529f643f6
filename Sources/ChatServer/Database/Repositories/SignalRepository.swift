/// A reply in a signal owner's inbox.
struct SignalReplyRow: Sendable {
    var id: Int
    var signalId: Int
    var signalContent: String
    var replyContent: String
    var fromUid: Int
    var isImOpened: Bool
}

/// Signals (open questions to everyone) and the replies to them.
protocol SignalRepository {
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

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

/// A signal as the feed and its owner see it.
package struct SignalRow: Sendable, Equatable {
    package var id: Int
    package var ownerUid: Int
    package var content: String
    package var createdAt: Int
    package var deleted: Bool
    /// Feed: whether the reader replied to it. Mine: how many replied.
    package var replied: Bool = false
    package var replyCount: Int = 0
    package init(id: Int, ownerUid: Int, content: String, createdAt: Int, deleted: Bool) {
        self.id = id; self.ownerUid = ownerUid; self.content = content; self.createdAt = createdAt; self.deleted = deleted
    }
}

/// A report of a signal, for the operator.
package struct SignalReportRow: Sendable, Equatable {
    package var id: Int
    package var signalId: Int
    package var reporterUid: Int
    package var reason: String
    package var createdAt: Int
    package init(id: Int, signalId: Int, reporterUid: Int, reason: String, createdAt: Int) {
        self.id = id; self.signalId = signalId; self.reporterUid = reporterUid; self.reason = reason; self.createdAt = createdAt
    }
}

/// Signals (open questions to everyone) and the replies to them.
package protocol SignalRepository {
    /// Stores a signal; returns its id.
    func insertSignal(owner: Int, content: String, createdAt: Int) throws -> Int
    /// Stores a reply; returns its id.
    func insertReply(signalId: Int, from: Int, content: String, createdAt: Int) throws -> Int
    /// The newest `limit` replies to `owner`'s signals, newest first.
    func inbox(owner: Int, limit: Int) throws -> [SignalReplyRow]
    /// Who wrote the reply and who owns the signal it answers.
    func parties(ofReply id: Int) throws -> (from: Int, owner: Int)?
    func markOpened(reply id: Int) throws
    /// Whether `id` is a reply by one of the two to a signal of the other.
    func isReply(_ id: Int, between a: Int, and b: Int) throws -> Bool

    /// A signal, deleted ones too.
    func signal(_ id: Int) throws -> SignalRow?
    func hasReplied(to signalId: Int, from uid: Int) throws -> Bool
    /// Up to `limit` signals of others, newest first, with ids below
    /// `before` (nil: from the newest): not deleted, not hidden by
    /// `reader`, and by nobody `reader` blocked or who blocked `reader`;
    /// `replied` says whether `reader` replied.
    func feed(for reader: Int, before: Int?, limit: Int) throws -> [SignalRow]
    /// `owner`'s signals not deleted, newest first, with `replyCount`.
    func signals(of owner: Int, limit: Int) throws -> [SignalRow]
    func markDeleted(_ id: Int) throws
    func hide(_ id: Int, for uid: Int) throws
    func report(_ id: Int, by uid: Int, reason: String, at: Int) throws
    /// The newest `limit` reports, newest first.
    func reports(limit: Int) throws -> [SignalReportRow]
}

import ChatCore
import GRDB

/// Which messages an open chat shows: the newest `count`, and, while the
/// reader is scrolled up, never less than everything from `keepFrom` on.
/// At the bottom the window slides as messages arrive (older ones drop out,
/// so a flood keeps it the same size); scrolled up it grows instead, so
/// what the reader is looking at stays in it.
public struct ChatWindow: Sendable, Hashable {
    public var count: Int
    public var keepFrom: Int?
    public init(count: Int, keepFrom: Int? = nil) {
        self.count = count; self.keepFrom = keepFrom
    }
}

extension ChatStore {
    /// The window's visible messages, oldest first, with our own messages
    /// the server has not acknowledged placed among them.
    public func window(_ window: ChatWindow, conversationId: String) throws -> MessagePage {
        try dbPool.read { db in try Self.window(window, conversationId: conversationId, db: db) }
    }

    /// A signal after every commit that may change what an open chat
    /// shows (its messages, or its clear mark), whoever wrote it: the sync,
    /// the send queue, the chat's own actions. GRDB's region observation
    /// fetches nothing; the chat reads its window itself on its own actor,
    /// so a page read before one of its own reads can never be shown over
    /// it (values observed on another thread could arrive that late). While
    /// the reader is busy, commits collapse into one signal. Ends when the
    /// stream is dropped or its reader cancelled.
    public func chatChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observation = DatabaseRegionObservation(tracking: Table(MessageRecord.databaseTableName), Table("conversation"))
        let cancellable = observation.start(in: dbPool, onError: { _ in continuation.finish() },
                                            onChange: { _ in continuation.yield() })
        continuation.onTermination = { _ in cancellable.cancel() }
        return stream
    }

    static func window(_ window: ChatWindow, conversationId: String, db: Database) throws -> MessagePage {
        let cleared = try Int.fetchOne(db.cachedStatement(sql: "SELECT clearedSeq FROM conversation WHERE id = ?"),
                                       arguments: [conversationId]) ?? 0
        var acked = try MessageRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message
            WHERE conversationId = ? AND seq IS NOT NULL AND seq > ? AND isControl = 0
            ORDER BY seq DESC LIMIT ?
            """), arguments: [conversationId, cleared, window.count])
        if let from = window.keepFrom, acked.count == window.count, let low = acked.last?.seq, low > from {
            acked = try MessageRecord.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM message
                WHERE conversationId = ? AND seq IS NOT NULL AND seq >= ? AND isControl = 0
                ORDER BY seq DESC
                """), arguments: [conversationId, max(from, cleared + 1)])
        }
        let pending = try MessageRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq IS NULL ORDER BY id ASC
            """), arguments: [conversationId])
        let placed = try placePending(pending, among: acked.reversed(), windowIsAll: acked.count < window.count, db: db)
        return MessagePage(messages: placed.map(\.stored), lowestSeq: acked.last?.seq)
    }
}

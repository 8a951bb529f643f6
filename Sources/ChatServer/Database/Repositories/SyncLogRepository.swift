/// Each user's event log, the body of `/chat/sync`: JSON event bodies by
/// cursor (one sequence for all users, rising in commit order), and the
/// floor below which cursors were pruned.
protocol SyncLogRepository {
    /// Appends `body` to `uid`'s log; returns its cursor.
    func append(uid: Int, messageId: Int64?, body: String, createdAt: Int) throws -> Int
    /// Appends the same body to two users' logs, `first`'s entry first;
    /// returns both cursors.
    func append(uids first: Int, _ second: Int, messageId: Int64, body: String, createdAt: Int) throws -> (Int, Int)
    /// Appends the same body to each user's log, in `uids` order; returns
    /// their cursors in that order.
    func append(uids: [Int], messageId: Int64, body: String, createdAt: Int) throws -> [Int]
    /// Rewrites every entry about message `messageId`: `message_update`
    /// events get `asUpdate`, the others `asMessage`.
    func rewrite(messageId: Int64, asMessage: String, asUpdate: String) throws
    /// Removes `uid`'s entries about these messages (deleted for them).
    func deleteEntries(of uid: Int, messageIds: [Int64]) throws
    /// Entries tied to no message whose body contains `text`.
    func unattachedEntries(containing text: String) throws -> [(cursor: Int, body: String)]
    func replaceBody(cursor: Int, with body: String) throws

    /// The newest cursor of `uid`'s log; nil when it is empty.
    func newestCursor(uid: Int) throws -> Int?
    /// Visits up to `limit` entries of `uid`'s log after `cursor`, in cursor
    /// order; returns whether more follow.
    func entries(of uid: Int, after cursor: Int, limit: Int, _ visit: (_ cursor: Int, _ body: String) throws -> Void) throws -> Bool

    /// The lowest cursor still kept; nil before the first prune.
    func floor() throws -> Int?
    /// The newest cursor written before `ms`; nil when there is none.
    func newestCursor(createdBefore ms: Int) throws -> Int?
    func deleteEntries(through cursor: Int) throws
    /// Raises the floor to `cursor` (never lowers it).
    func raiseFloor(to cursor: Int) throws
}

extension SyncLogRepository {
    /// One statement per entry (SQLite's statements cost no round trip).
    func append(uids: [Int], messageId: Int64, body: String, createdAt: Int) throws -> [Int] {
        try uids.map { uid in try append(uid: uid, messageId: messageId, body: body, createdAt: createdAt) }
    }
}

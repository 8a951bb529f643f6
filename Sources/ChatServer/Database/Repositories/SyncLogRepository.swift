/// Each user's event log, the body of `/chat/sync`: JSON event bodies by
/// cursor (one sequence for all users, rising in commit order), and the
/// floor below which cursors were pruned.
package protocol SyncLogRepository {
    /// Appends `body` to `uid`'s log; returns its cursor. `summaryKey`
    /// (`SummaryKey.of`): the entry is a conversation summary whose
    /// `lastMessage` is that message, found again by `summaries(of:)`.
    func append(uid: Int, messageId: Int64?, summaryKey: String?, body: String, createdAt: Int) throws -> Int
    /// Appends the same body to two users' logs, `first`'s entry first;
    /// returns both cursors.
    func append(uids first: Int, _ second: Int, messageId: Int64, body: String, createdAt: Int) throws -> (Int, Int)
    /// Appends `body` once to a group's timeline, which every member reads
    /// for the time they are in the group (`openSpan`/`closeSpan`); returns
    /// its cursor. A group message costs one entry, whatever the members.
    func appendShared(conversationId: String, messageId: Int64?, body: String, createdAt: Int) throws -> Int
    /// `uid` reads `conversationId`'s timeline from the next entry on,
    /// except entries about messages at or below `afterSeq` (from before
    /// they joined: an edit or reaction of one must not show it to them).
    func openSpan(uid: Int, conversationId: String, afterSeq: Int) throws
    /// `uid` reads nothing of `conversationId`'s timeline after the newest entry so far.
    func closeSpan(uid: Int, conversationId: String) throws
    /// Rewrites every entry about message `messageId`: `message_update`
    /// events get `asUpdate`, the others `asMessage`.
    func rewrite(messageId: Int64, asMessage: String, asUpdate: String) throws
    /// Removes `uid`'s own entries about these messages (deleted for them);
    /// timeline entries about them are left out of `uid`'s pages through
    /// the messages' hidden rows.
    func deleteEntries(of uid: Int, messageIds: [Int64]) throws
    /// Conversation summaries logged with `summaryKey` (an index look-up:
    /// the cost does not grow with the log).
    func summaries(of summaryKey: String) throws -> [(cursor: Int, body: String)]
    func replaceBody(cursor: Int, with body: String) throws

    /// The newest cursor of `uid`'s log, as `entries` pages it (their
    /// timelines' entries included, the messages they deleted left out); nil when it is empty.
    func newestCursor(uid: Int) throws -> Int?
    /// Visits up to `limit` entries of `uid`'s log after `cursor`, in cursor
    /// order: their own entries and those of the group timelines they read
    /// at the time, less the messages they deleted for themselves; returns
    /// whether more follow.
    func entries(of uid: Int, after cursor: Int, limit: Int, _ visit: (_ cursor: Int, _ body: String) throws -> Void) throws -> Bool

    /// The lowest cursor still kept; nil before the first prune.
    func floor() throws -> Int?
    /// The newest cursor written before `ms`; nil when there is none.
    func newestCursor(createdBefore ms: Int) throws -> Int?
    /// Deletes every entry through `cursor`, and the spans that ended by then.
    func deleteEntries(through cursor: Int) throws
    /// Raises the floor to `cursor` (never lowers it).
    func raiseFloor(to cursor: Int) throws
}

extension SyncLogRepository {
    func append(uid: Int, messageId: Int64?, body: String, createdAt: Int) throws -> Int {
        try append(uid: uid, messageId: messageId, summaryKey: nil, body: body, createdAt: createdAt)
    }
}

/// How a logged conversation summary names its last message.
package enum SummaryKey {
    package static func of(conversationId: String, clientMsgID: String) -> String { conversationId + "\n" + clientMsgID }
}

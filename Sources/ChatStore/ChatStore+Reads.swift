import ChatCore
import GRDB

/// Everything the store answers, each in one read transaction; the SQL is
/// in the table types (`Tables/`). `StoreReader` is this list.
extension ChatStore {
    // MARK: - Conversations

    /// The visible conversations in the seed's order: pinned first, then the
    /// newest message first. Previews are in `localizer`'s language.
    /// `useCache: false` always reads the database (the benchmark's cold figure).
    public func conversationList(localizer: Localizer = .current, useCache: Bool = true) throws -> [Conversation] {
        if useCache, let cached = listCache.get(localizer.language) { return cached }
        let generation = listCache.generation
        let records = try dbPool.read(ConversationTable.visible)
        let list = records.map { $0.conversation(myImUid: myImUid, localizer: localizer, memo: previews) }
        listCache.set(list, for: localizer.language, generation: generation)
        return list
    }

    public func conversation(id: String, localizer: Localizer = .current) throws -> Conversation? {
        try conversationRecord(id: id)?.conversation(myImUid: myImUid, localizer: localizer)
    }

    func conversationRecord(id: String) throws -> ConversationRecord? {
        try dbPool.read { db in
            try ConversationRecord.fetchOne(db.cachedStatement(sql: "SELECT \(ConversationRecord.shownSelection) FROM conversation WHERE id = ?"),
                                            arguments: [id])
        }
    }

    /// Total unread over visible conversations.
    public func totalUnread() throws -> Int { try dbPool.read(ConversationTable.totalUnread) }

    // MARK: - Messages

    /// The window's visible messages, oldest first, with our own messages
    /// the server has not acknowledged placed among them.
    public func window(_ window: ChatWindow, conversationId: String) throws -> MessagePage {
        try dbPool.read { db in try MessageTable.window(window, conversationId: conversationId, db: db) }
    }

    /// The newest `limit` visible messages of a conversation, oldest first,
    /// followed by our own messages the server has not acknowledged yet.
    public func newestPage(conversationId: String, limit: Int = 40) throws -> MessagePage {
        try window(ChatWindow(count: limit), conversationId: conversationId)
    }

    /// The `limit` visible messages just before `seq`, oldest first.
    public func page(conversationId: String, before seq: Int, limit: Int = 40) throws -> MessagePage {
        try dbPool.read { db in try MessageTable.page(conversationId: conversationId, before: seq, limit: limit, db: db) }
    }

    /// The `limit` visible messages just after `seq`, oldest first.
    public func page(conversationId: String, after seq: Int, limit: Int = 40) throws -> MessagePage {
        try dbPool.read { db in try MessageTable.page(conversationId: conversationId, after: seq, limit: limit, db: db) }
    }

    /// Visible messages with seq in from...to (for jumping to a search hit).
    public func visibleCount(conversationId: String, from: Int, to: Int) throws -> Int {
        try dbPool.read { db in try MessageTable.visibleCount(conversationId: conversationId, from: from, to: to, db: db) }
    }

    public func message(clientMsgID: String) throws -> StoredMessage? {
        try dbPool.read { db in try MessageTable.record(clientMsgID: clientMsgID, db: db)?.stored }
    }

    /// The lowest seq of a conversation held locally, 0 when none.
    public func lowestLocalSeq(conversationId: String) throws -> Int {
        try dbPool.read { db in try MessageTable.lowestLocalSeq(conversationId: conversationId, db: db) }
    }

    // MARK: - Sync and history

    public func syncCursor() throws -> Int { try dbPool.read(HistoryTable.cursor) }

    /// Seq ranges between the clear point and maxSeq not held locally: the
    /// holes to fill from `/chat/messages`.
    public func missingRanges(conversationId: String) throws -> [ClosedRange<Int>] {
        try dbPool.read { db in try HistoryTable.missingRanges(conversationId: conversationId, db: db) }
    }

    // MARK: - Search

    /// Messages whose text contains `query` (Chinese included), newest first.
    public func search(_ query: String, conversationId: String? = nil, limit: Int = 50) throws -> [StoredMessage] {
        try dbPool.read { db in try SearchTable.search(query, conversationId: conversationId, limit: limit, db: db) }
    }

    /// How many stored messages the search index has not taken in yet.
    public func searchBacklog() throws -> Int { try dbPool.read(SearchTable.backlog) }

    // MARK: - People and groups

    /// Peers of these conversations (all, when nil) whose profile is missing
    /// or lacks the account.
    public func peersLackingProfile(conversationIds: Set<String>? = nil) throws -> [Int] {
        try dbPool.read { db in try ProfileTable.peersLackingProfile(conversationIds: conversationIds, db: db) }
    }

    /// The one-to-one conversations with these peers.
    public func conversationIds(withPeers uids: [Int]) throws -> Set<String> {
        guard !uids.isEmpty else { return [] }
        return try dbPool.read { db in try ProfileTable.conversationIds(withPeers: uids, db: db) }
    }

    /// The peer with this login name, if its profile is cached.
    public func profile(account: String) throws -> UserBasicInfo? {
        try dbPool.read { db in try ProfileTable.profile(account: account, db: db) }
    }

    public func profiles(uids: [Int]) throws -> [Int: UserBasicInfo] {
        try dbPool.read { db in try ProfileTable.profiles(uids: uids, db: db) }
    }

    public func group(id groupId: Int) throws -> GroupInfo? {
        try dbPool.read { db in try GroupTable.group(id: groupId, db: db) }
    }

    /// The group with this unique name or name, among those cached.
    public func group(named name: String) throws -> GroupInfo? {
        try dbPool.read { db in try GroupTable.group(named: name, db: db) }
    }

    /// Members of a group, owner first, then by when they joined.
    public func members(groupId: Int) throws -> [GroupMember] {
        try dbPool.read { db in try GroupTable.members(groupId: groupId, db: db) }
    }

    /// Display names by imUid for the senders of a group's messages.
    public func senderNames(groupId: Int) throws -> [String: String] {
        try dbPool.read { db in try GroupTable.senderNames(groupId: groupId, db: db) }
    }

    public func contacts() throws -> [Contact] {
        try dbPool.read { db in try ContactTable.contacts(db: db) }
    }

    public func friendRequests() throws -> [FriendRequest] {
        try dbPool.read { db in try ContactTable.requests(db: db) }
    }

    /// Senders in this conversation whose name is not cached anywhere.
    public func unnamedSenders(conversationId: String) throws -> [Int] {
        try dbPool.read { db in try GroupTable.unnamedSenders(conversationId: conversationId, db: db) }
    }

    // MARK: - The outbox

    /// What the send queue may send now, oldest first: not failed, and not
    /// behind a failed send of the same conversation.
    public func outbox() throws -> [OutboxItem] { try dbPool.read(OutboxTable.sendable) }

    /// Every row, failed and held ones included, oldest first, with where it stands.
    public func outboxEntries() throws -> [OutboxEntry] { try dbPool.read(OutboxTable.entries) }

    public func outboxState() throws -> OutboxState { try dbPool.read(OutboxTable.state) }

    /// Whether an attempt at `clientMsgID` may have reached the server.
    public func mayHaveArrived(clientMsgID: String) throws -> Bool {
        try dbPool.read { db in try OutboxTable.mayHaveArrived(clientMsgID: clientMsgID, db: db) }
    }

    /// Whether `clientMsgID` waits behind a failed send of its conversation.
    public func isHeld(clientMsgID: String) throws -> Bool {
        try dbPool.read { db in try OutboxTable.isHeld(clientMsgID: clientMsgID, db: db) }
    }
}

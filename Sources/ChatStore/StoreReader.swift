import ChatCore
import Foundation

/// What a screen or a command may read from the store, and nothing it may
/// write: the shape of GRDB's demo app, where the app gets a read-only
/// `reader` and every write goes through one owner. Here that owner is
/// ChatSync (the session's actions, the sync engine, the send queue), which
/// keeps the `ChatStore` itself to itself.
public protocol StoreReader: Sendable {
    // Conversations
    func conversationList(localizer: Localizer, useCache: Bool) throws -> [Conversation]
    func conversation(id: String, localizer: Localizer) throws -> Conversation?
    func totalUnread() throws -> Int
    /// Every change of the list, after each commit that touches it.
    func conversationListChanges(localizer: Localizer) -> AsyncThrowingStream<[Conversation], any Error>

    // Messages
    func window(_ window: ChatWindow, conversationId: String) throws -> MessagePage
    /// Fires after every commit that may change a chat's window.
    func chatChanges() -> AsyncStream<Void>
    func newestPage(conversationId: String, limit: Int) throws -> MessagePage
    func page(conversationId: String, before seq: Int, limit: Int) throws -> MessagePage
    func page(conversationId: String, after seq: Int, limit: Int) throws -> MessagePage
    func visibleCount(conversationId: String, from: Int, to: Int) throws -> Int
    func message(clientMsgID: String) throws -> StoredMessage?
    func lowestLocalSeq(conversationId: String) throws -> Int
    func missingRanges(conversationId: String) throws -> [ClosedRange<Int>]
    func search(_ query: String, conversationId: String?, limit: Int) throws -> [StoredMessage]
    func syncCursor() throws -> Int

    // People and groups
    func profile(account: String) throws -> UserBasicInfo?
    func profiles(uids: [Int]) throws -> [Int: UserBasicInfo]
    func group(id groupId: Int) throws -> GroupInfo?
    func group(named name: String) throws -> GroupInfo?
    func members(groupId: Int) throws -> [GroupMember]
    func senderNames(groupId: Int) throws -> [String: String]
    /// Friends as last heard, in no particular order.
    func contacts() throws -> [Contact]
    /// Pending friend requests both ways, oldest first.
    func friendRequests() throws -> [FriendRequest]

    // The send queue's outbox
    func outbox() throws -> [OutboxItem]
    func outboxEntries() throws -> [OutboxEntry]
    func outboxState() throws -> OutboxState
}

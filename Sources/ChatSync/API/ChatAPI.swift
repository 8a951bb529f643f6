import ChatCore
import Foundation
import NIOSSL

/// Every call the client makes on the server (PROTOCOL.md), so the sync
/// engine, the send queue, the media cache and the view models can run
/// against something other than HTTP: `APIClient` is the real one,
/// ChatTesting's `FakeChatAPI` an in-memory server for tests.
///
/// Failures are `APIError`s, as `APIClient` throws them: a dead server is
/// `.unreachable`, a refusal `.server` with PROTOCOL.md's code.
///
/// Requirements take every argument; the extension below supplies the
/// defaults callers leave out. A conforming type implements each full form
/// itself (the extension's forwarders call the requirement, so one missing
/// would call itself).
public protocol ChatAPI: Sendable {
    // MARK: Accounts and profiles

    func register(account: String, password: String, username: String?) async throws -> AuthResponse
    func login(account: String, password: String) async throws -> AuthResponse
    func logout() async throws
    func me() async throws -> UserBasicInfo
    func searchUsers(_ q: String) async throws -> [UserBasicInfo]
    /// A new display name.
    func rename(to username: String) async throws -> UserBasicInfo
    func profiles(_ uids: [Int]) async throws -> [UserBasicInfo]

    // MARK: People (PROTOCOL.md v3)

    /// Changes the fields given (name, signature, picture's objectKey or "").
    func updateProfile(_ request: UpdateProfileRequest) async throws -> UserBasicInfo
    func settings() async throws -> UserSettings
    func setSettings(_ change: SettingsChange) async throws -> UserSettings
    func requestFriend(userId: Int, message: String?) async throws -> FriendRequest
    func friendRequests() async throws -> FriendRequestsResponse
    func respondFriend(requestId: Int, accept: Bool) async throws -> FriendRequest
    func friends() async throws -> [Contact]
    func removeFriend(userId: Int) async throws
    func remark(userId: Int, remark: String) async throws -> Contact
    func block(userId: Int) async throws
    func unblock(userId: Int) async throws
    func blocked() async throws -> [UserBasicInfo]
    func sessions() async throws -> [SessionInfo]
    func revokeSession(_ sessionId: String) async throws
    /// v4: a new password; the caller's other sessions are signed out, its
    /// own stays. A wrong `old` is a 401 `unauthorized`.
    func changePassword(old: String, new: String) async throws

    // MARK: Messages

    func send(_ request: SendMessageRequest) async throws -> SendMessageResponse
    /// Returns the seq of the revoke notice.
    func revoke(conversationId: String, clientMsgID: String) async throws -> Int
    /// v3: adds or takes back my `emoji`; the message's reactions after it.
    func react(conversationId: String, clientMsgID: String, emoji: String, on: Bool) async throws -> Reactions
    /// v3: my message's new content (of its own content type); the message as it now is.
    func edit(conversationId: String, clientMsgID: String, content: String) async throws -> WireMessage
    /// v3 favourites: keep a copy, list mine newest first, remove one.
    func addFavorite(conversationId: String, clientMsgID: String) async throws -> Favorite
    func favorites(before: Int?, limit: Int) async throws -> FavoriteListResponse
    func removeFavorite(_ favoriteId: Int) async throws
    /// v3: these messages are never shown to me again (others keep them).
    func deleteMessages(conversationId: String, clientMsgIDs: [String]) async throws
    func history(conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) async throws -> HistoryResponse

    // MARK: Conversations

    func conversations() async throws -> [ConversationSummary]
    func startConversation(userId: Int) async throws -> ConversationSummary
    func pin(conversationId: String, isPinned: Bool) async throws -> ConversationSummary
    func markRead(conversationId: String, seq: Int) async throws -> ConversationSummary
    func deleteConversation(_ id: String) async throws
    func clearConversation(_ id: String) async throws
    func mute(conversationId: String, isMuted: Bool) async throws -> ConversationSummary

    // MARK: Groups (PROTOCOL.md v2)

    func createGroup(_ request: CreateGroupRequest) async throws -> GroupInfo
    func groupInfo(groupId: Int) async throws -> GroupInfo
    func lookupGroup(uniqueName: String) async throws -> GroupInfo
    func joinGroup(uniqueName: String) async throws -> ConversationSummary
    func invite(groupId: Int, userIds: [Int]) async throws -> GroupInfo
    func leaveGroup(groupId: Int) async throws
    func kick(groupId: Int, userId: Int) async throws
    func updateGroup(_ request: UpdateGroupRequest) async throws -> GroupInfo
    /// One page of members with a uid above `after`.
    func groupMembersPage(groupId: Int, after: Int, limit: Int) async throws -> GroupMembersResponse

    // MARK: Rooms (PROTOCOL.md v3)

    func createRoom(_ request: CreateRoomRequest) async throws -> RoomInfo
    func rooms(query: String, limit: Int) async throws -> [RoomInfo]
    func lookupRoom(uniqueName: String) async throws -> RoomInfo
    func enterRoom(uniqueName: String) async throws -> EnterRoomResponse
    func leaveRoom(roomId: Int) async throws
    func roomPresent(roomId: Int) async throws -> [UserBasicInfo]
    func updateRoom(_ request: UpdateRoomRequest) async throws -> RoomInfo
    func kickFromRoom(roomId: Int, userId: Int, ban: Bool) async throws
    func unbanFromRoom(roomId: Int, userId: Int) async throws
    func roomBans(roomId: Int) async throws -> [UserBasicInfo]
    func dropRoom(roomId: Int) async throws

    // MARK: Sync

    func sync(since: Int, limit: Int) async throws -> SyncResponse
    /// The WebSocket that says when to pull; nil when there is none, and the
    /// sync engine then learns of new events by polling (or `requestPull`).
    var pushURL: String? { get }
    /// What a `wss://` push socket trusts (nil: the system's roots).
    var pushTLSConfiguration: TLSConfiguration? { get }

    // MARK: Media

    /// `progress` hears the fraction of the bytes sent so far (0...1).
    func upload(_ data: Data, contentType: String, kind: String,
                progress: (@Sendable (Double) -> Void)?) async throws -> UploadResponse
    func sign(_ keys: [String]) async throws -> SignResponse
    /// A signed URL for `objectKey` on this server, built from the signature
    /// part of `url`; nil when `url` holds no signed URL for the key.
    func ownMediaURL(from url: String, objectKey: String) -> String?
    /// The bytes of a signed URL of this server; other URLs are refused.
    func download(_ url: String, limit: Int) async throws -> Data

    // MARK: Signals

    func createSignal(_ content: String) async throws -> Int
    /// Returns the reply's `receiveId`.
    func replySignal(signalId: Int, content: String) async throws -> String
    func signalInbox() async throws -> [SignalInboxItem]
    func openIM(receiveId: String) async throws
    /// v4: others' signals, newest first, below `before`.
    func signalFeed(before: Int?, limit: Int) async throws -> [SignalFeedItem]
    func mySignals() async throws -> [MySignal]
    func deleteSignal(_ signalId: Int) async throws
    func hideSignal(_ signalId: Int) async throws
    func reportSignal(_ signalId: Int, reason: String) async throws

    // MARK: Typing and read receipts (v4)

    func typing(conversationId: String) async throws
    func readCounts(conversationId: String, seqs: [Int]) async throws -> ReadCountsResponse
    func readers(conversationId: String, seq: Int) async throws -> ReadersResponse

    // MARK: Seed gaps (v4)

    func dissolveGroup(groupId: Int) async throws
    func myRooms() async throws -> [RoomInfo]

    // MARK: Secret chats (v4)

    func uploadKeys(_ keys: DeviceKeysUpload) async throws
    func prekeyCount() async throws -> Int
    func devices(userId: Int) async throws -> [DeviceBundle]
    func claimKeys(userId: Int, deviceIds: [String]?) async throws -> [DeviceBundle]
    func startSecret(userId: Int) async throws -> ConversationSummary
    func secretRetry(conversationId: String, clientMsgID: String) async throws
    func secretReseal(_ request: SecretResealRequest) async throws
    func secretFlashViewed(conversationId: String, clientMsgID: String) async throws
}

/// The defaults of PROTOCOL.md's optional parameters.
extension ChatAPI {
    public func register(account: String, password: String, username: String? = nil) async throws -> AuthResponse {
        try await register(account: account, password: password, username: username)
    }

    public func history(conversationId: String, beforeSeq: Int? = nil, afterSeq: Int? = nil,
                        limit: Int = 40) async throws -> HistoryResponse {
        try await history(conversationId: conversationId, beforeSeq: beforeSeq, afterSeq: afterSeq, limit: limit)
    }

    public func sync(since: Int, limit: Int = 500) async throws -> SyncResponse {
        try await sync(since: since, limit: limit)
    }

    public func upload(_ data: Data, contentType: String, kind: String,
                       progress: (@Sendable (Double) -> Void)? = nil) async throws -> UploadResponse {
        try await upload(data, contentType: contentType, kind: kind, progress: progress)
    }

    public func download(_ url: String, limit: Int = 32 * 1024 * 1024) async throws -> Data {
        try await download(url, limit: limit)
    }

    /// Every member, page by page.
    public func groupMembers(groupId: Int) async throws -> [GroupMember] {
        var all: [GroupMember] = []
        var after = 0
        while true {
            let page = try await groupMembersPage(groupId: groupId, after: after, limit: 500)
            all += page.members
            guard page.hasMore, let last = page.members.last, last.uid > after else { return all }
            after = last.uid
        }
    }
}

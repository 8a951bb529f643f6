import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Everything that can change the app's state: keys, the sync engine, the
/// clock, and the answers of effects.
enum Event {
    case key(Key)
    case sync(SyncUpdate)
    /// The clock moved (the run loop's tick).
    case tick
    /// Something happened to the conversation list (an answer of its effects, the store).
    case list(ListEvent)
    /// Something happened to one opening of a chat (an answer of its
    /// effects, the store changing under it); dropped when that opening is
    /// no longer on screen.
    case chat(ChatEvent, ChatState.Ref)
    /// What an effect found that the status line tells (worded by the update).
    case outcome(Outcome)
    /// Words already made (the run loop's own failure).
    case status(String)
    case messageHits(query: String, [AppState.SearchHit])
    case usersFound(query: String, [UserBasicInfo])
    /// v4: what the signals' effects found.
    case signals(SignalEvent)
    /// v4: my group messages' read counts, by seq.
    case readCounts(conversationId: String, [Int: ReadCountsResponse.Count])
    /// v4: who read my group message and who has not (已读详情).
    case readersLoaded(conversationId: String, seq: Int, ReadersResponse)
    /// v3: what `/` in the list found in the messages for `query`.
    case listHits(query: String, [AppState.GlobalHit])
    /// v3: what the editor saved: the input bar's new text, unsent.
    case composed(String)
    /// v3 people: what their effects found (Update+People.swift).
    case people(PeopleEvent)
    /// v3 rooms: what their effects found (Update+Rooms.swift).
    case rooms(RoomEvent)
    /// v3: my favourites as the server has them (nil: they could not be read).
    case favoritesLoaded([Favorite]?)
    case flashShown(ChatMessage, RGBImage)
    case pictureShown(ChatMessage, index: Int, RGBImage)
    case thumbnailDecoded(key: String, AppState.Thumbnail)
    /// A decoder that timed out may be asked again.
    case thumbnailRetryDue(key: String)
    case playing(messageId: String?)
    case recordingStarted(URL)
    /// A text the store could not queue (a full disk): back into the input bar.
    case sendRefused(String)
    /// Open this chat (one just started, made, joined, or opened from a signal).
    case open(Conversation)
    /// Take a conversation off the list (a group just left, to be deleted).
    case deleteConversation(id: String)
    /// A search hit was brought into the window: select it.
    case selectMessage(id: String)
    /// Tab's path completion of `text` (listed by the runner).
    case pathCompleted(for: String, PathCompletion.Result)
}

/// What the people effects answer.
enum PeopleEvent {
    /// Friends and pending requests as the store has them, and whom I blocked (nil: unchanged).
    case loaded(contacts: [Contact], requests: [FriendRequest], blocked: [UserBasicInfo]?)
    /// Users found for 添加好友's query.
    case found(query: String, [UserBasicInfo])
    /// v4: rooms I own or entered lately.
    case rooms([RoomInfo])
    /// My page's parts as the server has them (nil: not read).
    case mine(UserBasicInfo?, UserSettings?, [SessionInfo]?)
    /// A peer's page: shown when `opening`, else refreshed if on screen.
    case peer(PeerPage, opening: Bool)
    /// The login was given up here (退出登录): back to sign-in.
    case loggedOut
}

/// What the room effects answer.
enum RoomEvent {
    /// The directory's rooms for `query`.
    case directory(query: String, [RoomInfo])
    /// In a room (entered, made, or entered again after a reconnect).
    case entered(EnterRoomResponse, again: Bool)
    /// A gap of the room was filled with these messages (oldest first).
    case filled(conversationId: String, [WireMessage])
    /// Who is in a room now, as the server says.
    case present(roomId: Int, [UserBasicInfo])
    /// Out of a room: left, or it could not be entered again (`why` says).
    case left(roomId: Int, why: LeftRoom?)
    /// A room entered again after a reconnect is no more.
    case vanished(unique: String)
    /// Entering a room again after a reconnect failed for another reason.
    case reenterFailed(unique: String, reason: Failure)
    case bans(roomId: Int, [UserBasicInfo])
    /// The owner's change, as the server answered it.
    case changed(RoomInfo)
}

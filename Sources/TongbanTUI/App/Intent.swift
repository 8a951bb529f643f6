import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Everything that can change the app's state: keys, the sync engine, the
/// clock, and the answers of effects.
enum Intent {
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
    /// An effect's outcome in plain words, for the status line.
    case status(String)
    case messageHits(query: String, [AppState.SearchHit])
    case usersFound(query: String, [UserBasicInfo])
    case signalsLoaded([SignalInboxItem])
    /// v3: what `/` in the list found in the messages for `query`.
    case listHits(query: String, [AppState.GlobalHit])
    /// v3: what the editor saved: the input bar's new text, unsent.
    case composed(String)
    /// v3 people: what their effects found (Update+People.swift).
    case people(PeopleIntent)
    /// v3 rooms: what their effects found (Update+Rooms.swift).
    case rooms(RoomIntent)
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

/// The I/O an update asks for; `EffectRunner` performs it and answers with
/// intents. Values only: tests read them without running anything.
enum Effect: Equatable {
    /// Slash commands in a group chat.
    enum GroupCommand: Equatable {
        case invite([String]), kick(String), kickMember(uid: Int), rename(String), notice(String), joinable(Bool), leave
        /// v3: a picture file made the group's (owner only).
        case avatar(path: String)
    }

    /// Tab after a media command: list the directory to complete the path.
    case completePath(String)
    /// An effect of the chat `for` (ChatState.update asked for it) in its opening `ref`.
    case chat(ChatEffect, for: Conversation, ChatState.Ref)
    case saveDraft(String?)
    /// An effect of the conversation list (ListState.update asked for it).
    case list(ListEffect)
    case leaveGroup(id: String, delete: Bool)
    case createGroup(name: String, unique: String, members: [Int])
    case joinGroup(unique: String)
    case group(GroupCommand)
    case sendMention(String, mentioned: [String], all: Bool)
    case revoke(messageId: String)
    /// v3: my `emoji` on a message, or taken back.
    case react(messageId: String, emoji: String, on: Bool)
    /// v3: a reply to `messageId` (with the `@` names picked in a group).
    case sendReply(String, to: String, mentioned: [String], all: Bool)
    /// v3: the draft to `$VISUAL`/`$EDITOR` and back.
    case compose(String)
    /// v3: a message's text to the system clipboard.
    case copy(String)
    /// v3: messages sent again, one by one, to each of these conversations.
    case forward(messageIds: [String], to: [String])
    /// v3: the messages as one merged forward (聊天记录) to each conversation.
    case forwardMerged(messageIds: [String], to: [String])
    /// v3: messages deleted for me only.
    case deleteForMe(messageIds: [String])
    /// v3: my text's new words.
    case edit(messageId: String, text: String)
    case retry(messageId: String)
    case discard(messageId: String)
    case clearHistory
    case reveal(seq: Int, messageId: String)
    case sendText(String)
    /// Files sent as the kind named so (`OutgoingKinds`: `/image`, `/file`, …).
    case sendFiles(kind: String, paths: [String])
    case startRecording
    case finishRecording(file: URL, send: Bool)
    case searchMessages(String)
    /// v3: `/` in the list searches the messages of every conversation too.
    case searchEverywhere(String)
    /// A message somewhere: its chat opened, scrolled to it, it selected
    /// (a favourite, a hit of `/` in the list); `name` says which chat is gone.
    case openMessage(conversationId: String, name: String, seq: Int, messageId: String)
    case searchUsers(String)
    case startConversation(UserBasicInfo)
    case loadSignals
    case openSignal(SignalInboxItem)
    /// v3 people: friends, requests, blocks, my page (EffectRunner+People.swift).
    case people(PeopleCommand)
    /// v3 rooms (EffectRunner+Rooms.swift).
    case room(RoomCommand)
    /// v3 favourites: load them, keep one, remove one, open one in its chat.
    case loadFavorites
    case addFavorite(messageId: String)
    case removeFavorite(Int)

    case showFlash(ChatMessage, width: Int, height: Int)
    case showPicture(ChatMessage, index: Int, width: Int, height: Int)
    case play(ChatMessage)
    case openPicture(ChatMessage, index: Int)
    case openExternally(ChatMessage)
    case saveFile(ChatMessage, thenOpen: Bool)
    case decodeThumbnail(key: String)
    /// A profile's or group's picture, fetched and decoded for a page.
    case decodeAvatar(key: String)
    /// Answers `.thumbnailRetryDue` after the runner's retry delay.
    case retryThumbnail(key: String)
    case resumeSending
    case ring
    case setTitle(String)
    /// A desktop notification (title and body are cleaned and shortened on the way out).
    case notify(title: String, body: String)
}

/// What the people effects answer.
enum PeopleIntent {
    /// Friends and pending requests as the store has them, and whom I blocked (nil: unchanged).
    case loaded(contacts: [Contact], requests: [FriendRequest], blocked: [UserBasicInfo]?)
    /// Users found for 添加好友's query.
    case found(query: String, [UserBasicInfo])
    /// My page's parts as the server has them (nil: not read).
    case mine(UserBasicInfo?, UserSettings?, [SessionInfo]?)
    /// A peer's page: shown when `opening`, else refreshed if on screen.
    case peer(PeerPage, opening: Bool)
    /// The login was given up here (退出登录): back to sign-in.
    case loggedOut
}

/// What the people effects do; each answers with `PeopleIntent`s.
enum PeopleCommand: Equatable {
    /// The store's friends and requests at once, then the server's (with blocks).
    case load
    /// The store's friends and requests, and whom I blocked (one request).
    case loadStored
    case search(String)
    case request(UserBasicInfo, message: String)
    case respond(requestId: Int, accept: Bool)
    case remove(Contact)
    case remark(uid: Int, String)
    case block(uid: Int)
    case unblock(uid: Int)
    case loadMine
    case updateProfile(name: String?, signature: String?)
    /// A picture file, made small and stripped, uploaded and made mine.
    case setAvatar(path: String)
    case acceptStrangers(Bool)
    case signOutDevice(String)
    /// v4: a new password (my other devices are signed out).
    case changePassword(current: String, new: String)
    case logout
    /// A peer's page (`,` in a single chat).
    case openPeer(uid: Int)
}

/// What the room effects answer.
enum RoomIntent {
    /// The directory's rooms for `query`.
    case directory(query: String, [RoomInfo])
    /// In a room (entered, made, or entered again after a reconnect).
    case entered(EnterRoomResponse, again: Bool)
    /// A gap of the room was filled with these messages (oldest first).
    case filled(conversationId: String, [WireMessage])
    /// Who is in a room now, as the server says.
    case present(roomId: Int, [UserBasicInfo])
    /// Out of a room: left, or it could not be entered again (`why` says).
    case left(roomId: Int, why: String?)
    /// A room entered again after a reconnect is no more.
    case vanished(unique: String)
    /// Entering a room again after a reconnect failed for another reason.
    case reenterFailed(unique: String, reason: String)
    case bans(roomId: Int, [UserBasicInfo])
    /// The owner's change, as the server answered it.
    case changed(RoomInfo)
}

/// What the room effects do; each answers with `RoomIntent`s.
enum RoomCommand: Equatable {
    case directory(String)
    case create(name: String, unique: String, topic: String)
    case enter(unique: String, again: Bool)
    /// A pushed message into the store (the chat pages it from there).
    case keep(WireMessage, RoomInfo)
    /// A pushed update (a reaction, an edit, a revoke) over the stored copy.
    case keepUpdate(WireMessage)
    /// The messages between two seqs, from history into the store.
    case fill(RoomInfo, after: Int, before: Int)
    case leave(roomId: Int)
    case update(roomId: Int, name: String?, topic: String?)
    case kick(roomId: Int, uid: Int, ban: Bool)
    case unban(roomId: Int, uid: Int)
    case loadBans(roomId: Int)
    /// Who is here, asked again (a gap held comings and goings).
    case refreshPresent(roomId: Int)
    case drop(roomId: Int)
}

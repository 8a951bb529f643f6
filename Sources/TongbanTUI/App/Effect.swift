import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// The I/O an update asks for; `EffectRunner` performs it and answers with
/// events. Values only: tests read them without running anything.
enum Effect: Equatable {
    /// Slash commands in a group chat.
    enum GroupChange: Equatable {
        case invite([String]), kick(String), kickMember(uid: Int), rename(String), notice(String), joinable(Bool), leave
        /// v4: the owner ends the group.
        case dissolve
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
    case group(GroupChange)
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
    /// v4: a person's card (名片), by account.
    case sendCard(account: String)
    /// Files sent as the kind named so (`OutgoingKinds`: `/image`, `/file`, …).
    case sendFiles(kind: String, paths: [String])
    /// Enter on the voice message playing.
    case stopPlaying
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
    /// v4: starts (or opens) the secret chat with them.
    case startSecret(UserBasicInfo)
    case openSignal(SignalInboxItem)
    /// v4 signals: the feed, mine, replies (EffectRunner+Live.swift).
    case signals(SignalEffect)
    /// v4 typing and read receipts (EffectRunner+Live.swift).
    case live(LiveEffect)
    /// v3 people: friends, requests, blocks, my page (EffectRunner+People.swift).
    case people(PeopleEffect)
    /// v3 rooms (EffectRunner+Rooms.swift).
    case room(RoomEffect)
    /// v3 favourites: load them, keep one, remove one, open one in its chat.
    case loadFavorites
    case addFavorite(messageId: String)
    case removeFavorite(Int)

    case showFlash(ChatMessage, width: Int, height: Int)
    case showPicture(ChatMessage, index: Int, width: Int, height: Int)
    case play(ChatMessage)
    case openPicture(ChatMessage, index: Int)
    case openExternally(ChatMessage)
    /// A link from a message, with `xdg-open` (`TONGBAN_URL_OPENER`).
    case openLink(String)
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

/// What the people effects do; each answers with `PeopleEvent`s.
enum PeopleEffect: Equatable {
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
    /// Flip my settings' switches (strangers, typing, reads).
    case settings(SettingsChange)
    case signOutDevice(String)
    /// v4: a new password (my other devices are signed out).
    case changePassword(current: String, new: String)
    case logout
    /// A peer's page (`,` in a single chat).
    case openPeer(uid: Int)
    /// v4: marks the safety number with them verified.
    case verify(uid: Int, number: String)
    /// v4: a secret chat's disappearing-message timer, on both sides.
    case secretTimer(conversationId: String, seconds: Int)
}

/// What the room effects do; each answers with `RoomEvent`s.
enum RoomEffect: Equatable {
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

/// Typing and read receipts' I/O (PROTOCOL.md v4).
enum LiveEffect: Equatable {
    /// Tell the chat's others I am typing.
    case typing(conversationId: String)
    /// The read counts of my group messages `seqs`.
    case readCounts(conversationId: String, seqs: [Int])
    /// Who read my group message `seq` (已读详情).
    case readers(conversationId: String, seq: Int)
}

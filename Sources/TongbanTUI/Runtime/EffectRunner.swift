import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import ChatViewModels
import Foundation
import Spawn
import TerminalUI

/// Performs effects: all the client's I/O goes through here (the chat's
/// through `ChatEffects`, the list's through its view model), and every
/// outcome comes back to the app as an event. The open chat's state is the
/// app's (`AppState.chat`); the runner keeps only the handles of what runs
/// beside the keys, so it can stop them.
@MainActor
final class EffectRunner {
    let session: Session
    let L: Localizer
    let listEffects: ListEffects
    let chatEffects: ChatEffects
    /// Answers events (the app's `dispatch`).
    var dispatch: (Event) async -> Void = { _ in }
    /// Answers an event from a callback that cannot wait.
    var post: (Event) -> Void = { _ in }
    /// The open chat as the app holds it (read, never kept).
    var openChat: () -> ChatState? = { nil }
    var pictureDecoder: PictureDecoder = .inProcess
    var downloadsDirectory: URL = Downloads.directory()
    /// How long a decoder that timed out or could not start is left alone.
    var thumbnailRetry: Duration = .seconds(5)
    var ring: () -> Void = {}
    var setTitle: (String) -> Void = { _ in }
    var notify: (DesktopNotification) -> Void = { _ in }
    /// The clipboard, when the terminal has one (see `ChatApp.copy`).
    var copy: () -> (@Sendable (String) -> String?)? = { nil }
    /// The external editor, when the terminal has one (see `ChatApp.compose`).
    var compose: () -> (@Sendable (String) async -> String?)? = { nil }
    /// The text in the input bar (saved as a draft when a chat closes).
    var inputText: () -> String = { "" }
    var player: ChildProcess?
    var recorder: ChildProcess?
    /// The list's subscription to the store.
    private var listFollowing: Task<Void, Never>?
    /// The open chat's subscriptions and its work beside the keys.
    private let chatTasks = ChatTasks(serverWorkBeside: true, followSync: false)
    /// The server's part of opening the current chat (tests await it).
    var appearing: Task<Void, Never>? { chatTasks.appearing }

    init(session: Session, localizer: Localizer) {
        self.session = session
        self.L = localizer
        self.listEffects = ListEffects(session: session, localizer: localizer)
        self.chatEffects = ChatEffects(session: session, localizer: localizer)
    }

    /// Performs what one update asked for, in order. Each effect is I/O on
    /// the session, the list's view model or the terminal; what it learns
    /// comes back through `dispatch` as an event for `Update.apply`, never
    /// by writing the state here.
    func run(_ effects: [Effect]) async {
        for effect in effects { await run(effect) }
    }

    func run(_ effect: Effect) async {
        let current = openChat()
        let c = current?.conversation
        switch effect {
        case .chat(let effect, let conversation, let ref): await chat(effect, for: conversation, ref)
        case .saveDraft(let text): if let c { chatEffects.saveDraft(text, of: c) }
        case .list(let effect):
            if case .follow = effect {
                guard listFollowing == nil else { return }
                listFollowing = listEffects.follow(listEmit)
            } else {
                await listEffects.perform(effect, emit: listEmit)
            }
        case .leaveGroup(let id, let delete):
            guard await listEffects.leaveGroup(id: id, emit: listEmit) else { return }
            if delete {
                await dispatch(.deleteConversation(id: id))
            } else if let current, current.id == id {
                await dispatch(.chat(.groupChanged, current.ref))
            }
        case .createGroup(let name, let unique, let members):
            if let id = await listEffects.createGroup(name: name, uniqueName: unique, memberIds: members, emit: listEmit) {
                await open(id: id)
            }
        case .joinGroup(let unique):
            if let id = await listEffects.joinGroup(uniqueName: unique, emit: listEmit) { await open(id: id) }
        case .group(let command): await group(command)
        case .sendMention(let text, let mentioned, let all):
            guard let current else { return }
            if !(await chatEffects.sendMention(text, mentioned: mentioned, atAll: all, in: current, emit: emit(current.ref))) {
                await dispatch(.sendRefused(text))
            }
        case .revoke(let id): if let current { await chatEffects.revoke(messageId: id, emit: emit(current.ref)) }
        case .react(let id, let emoji, let on):
            if let current { await chatEffects.react(messageId: id, emoji: emoji, on: on, in: current.conversation, emit: emit(current.ref)) }
        case .sendReply(let text, let id, let mentioned, let all):
            guard let current else { return }
            if !(await chatEffects.sendReply(text, to: id, mentioned: mentioned, atAll: all, in: current, emit: emit(current.ref))) {
                await dispatch(.sendRefused(text))
            }
        case .forward(let ids, let targets):
            guard let current else { return }
            let messages = ids.compactMap { id in current.messages.first { $0.id == id } }
            await chatEffects.forward(messages, to: targets, emit: emit(current.ref))
        case .forwardMerged(let ids, let targets):
            guard let current else { return }
            let messages = ids.compactMap { id in current.messages.first { $0.id == id } }
            let c = current.conversation
            let title = MergedPayload.defaultTitle(isGroup: c.isGroup, chatName: c.nickname, myName: session.credentials.username,
                                                   localizer: L)
            // Who said what: a group's members, or the peer of a single chat.
            var names = current.senderNames
            if !c.isGroup { names[ConversationIDHelper.imUid(c.targetUid)] = c.nickname }
            await chatEffects.forwardMerged(messages, title: title, names: names, to: targets, emit: emit(current.ref))
        case .deleteForMe(let ids):
            if let current { await chatEffects.deleteForMe(messageIds: ids, in: current.conversation, emit: emit(current.ref)) }
        case .edit(let id, let text):
            if let current { await chatEffects.edit(messageId: id, to: text, in: current.conversation, emit: emit(current.ref)) }
        case .retry(let id): if let current { await chatEffects.retry(messageId: id, emit: emit(current.ref)) }
        case .discard(let id):
            // Waits for the send lock, which an upload may hold: not in the key loop.
            guard let current else { return }
            let effects = chatEffects, emit = emit(current.ref)
            Task { await effects.discard(messageId: id, emit: emit) }
        case .clearHistory: if let current { await chatEffects.clearHistory(of: current.conversation, emit: emit(current.ref)) }
        case .reveal(let seq, let id):
            guard let current else { return }
            await chat(.reveal(seq: seq), for: current.conversation, current.ref)
            await dispatch(.selectMessage(id: id))
        case .sendText(let text):
            if let current, !(await chatEffects.sendText(text, in: current.conversation, emit: emit(current.ref))) {
                await dispatch(.sendRefused(text))
            }
        case .sendCard(let account):
            if let current { await chatEffects.sendCard(of: account, in: current.conversation, emit: emit(current.ref)) }
        case .sendFiles(let name, let paths):
            guard let current, let kind = OutgoingKinds.named(name) else { return }
            await chatEffects.send(kind, paths: paths, in: current.conversation, emit: emit(current.ref))
        case .startRecording: await startRecording()
        case .finishRecording(let file, let send): await finishRecording(file, send: send)
        case .searchMessages(let q): await dispatch(.messageHits(query: q, hits(q)))
        case .searchUsers(let q): await dispatch(.usersFound(query: q, await listEffects.searchUsers(q, emit: listEmit)))
        case .startConversation(let user):
            if let c = await listEffects.startConversation(with: user, emit: listEmit) { await dispatch(.open(c)) }
        case .startSecret(let user):
            if let c = await listEffects.startSecretChat(with: user, emit: listEmit) { await dispatch(.open(c)) }
        case .signals(let effect): await signals(effect)
        case .live(let effect): await live(effect)
        case .people(let command): await people(command)
        case .room(let command): await room(command)
        case .decodeAvatar(let key): decodeAvatar(key)
        case .loadFavorites: await dispatch(.favoritesLoaded(await listEffects.favorites(emit: listEmit)))
        case .addFavorite(let id):
            if let current { await chatEffects.addFavorite(messageId: id, in: current.conversation, emit: emit(current.ref)) }
        case .removeFavorite(let id): await listEffects.removeFavorite(id, emit: listEmit)
        case .openMessage(let id, let name, let seq, let messageId):
            // Its chat, if I am still in it, scrolled to it; else a word on the status line.
            guard let c = listEffects.read()?.first(where: { $0.id == id }) else {
                await dispatch(.outcome(.chatGone(name: name)))
                return
            }
            await dispatch(.open(c))
            guard let current = openChat() else { return }
            await chat(.reveal(seq: seq), for: current.conversation, current.ref)
            await dispatch(.selectMessage(id: messageId))
        case .searchEverywhere(let q): await dispatch(.listHits(query: q, listHits(q)))
        case .openSignal(let item):
            if let c = await listEffects.openSignal(item, emit: listEmit) { await dispatch(.open(c)) }
        case .showFlash(let m, let w, let h): await showFlash(m, width: w, height: h)
        case .showPicture(let m, let index, let w, let h): await showPicture(m, index: index, width: w, height: h)
        case .completePath(let text):
            if let completed = PathCompletion.complete(text) { await dispatch(.pathCompleted(for: text, completed)) }
        case .play(let m): await play(m)
        case .stopPlaying: await stopPlaying()
        case .openPicture(let m, let index): await openPicture(m, index: index)
        case .openExternally(let m): await openExternally(m)
        case .openLink(let url): await openLink(url)
        case .saveFile(let m, let thenOpen):
            if let saved = await saveFile(m), thenOpen { await view(saved) }
        case .decodeThumbnail(let key): decodeThumbnail(key)
        case .retryThumbnail(let key):
            let delay = thumbnailRetry
            Task { @MainActor [weak self] in
                try? await Task.sleep(for: delay)
                await self?.dispatch(.thumbnailRetryDue(key: key))
            }
        case .resumeSending: await listEffects.resumeSending()
        case .ring: ring()
        case .setTitle(let title): setTitle(title)
        case .notify(let title, let body): notify(DesktopNotification(title: title, body: body))
        case .compose(let text):
            guard let compose = compose() else { return await dispatch(.outcome(.noEditor)) }
            if let edited = await compose(text) {
                await dispatch(.composed(edited))
            } else {
                await dispatch(.outcome(.editorFailed))
            }
        case .copy(let text):
            guard let copy = copy() else { return await dispatch(.outcome(.noClipboard)) }
            // A clipboard program is waited for off the main actor.
            let how = await Task.detached { copy(text) }.value
            await dispatch(.outcome(.copied(how: how)))
        }
    }

    // MARK: - Chats

    /// Answers of the list's effects, as events.
    var listEmit: ListEffects.Emit { { [weak self] event in await self?.dispatch(.list(event)) } }

    /// Answers of one chat opening's effects, as events; none from work
    /// that was stopped.
    func emit(_ ref: ChatState.Ref) -> ChatEffects.Emit {
        { [weak self] event in
            guard !Task.isCancelled else { return }
            await self?.dispatch(.chat(event, ref))
        }
    }

    /// One effect of a chat's update, run by `ChatTasks` with the server's
    /// work beside the keys (a slow or dead server must not hold up the
    /// next key).
    func chat(_ effect: ChatEffect, for c: Conversation, _ ref: ChatState.Ref) async {
        // Asked for by a chat that has closed since (a sync's effects run
        // later); closing is always carried out.
        if case .stopFollowing = effect {} else if openChat()?.ref != ref { return }
        await chatTasks.run(effect, for: c, with: chatEffects, emit: emit(ref))
    }

    /// Opens a conversation the store knows by id (a group just made or joined).
    func open(id: String) async {
        guard let c = listEffects.read()?.first(where: { $0.id == id }) else { return }
        await dispatch(.open(c))
    }

    func group(_ command: Effect.GroupChange) async {
        guard let chat = openChat() else { return }
        let c = chat.conversation
        let mapped: ChatEffects.GroupChange
        switch command {
        case .invite(let names): mapped = .invite(names)
        case .kick(let name): mapped = .kick(name)
        case .kickMember(let uid): mapped = .kickMember(uid: uid)
        case .rename(let name): mapped = .rename(name)
        case .notice(let text): mapped = .notice(text)
        case .joinable(let on): mapped = .joinable(on)
        case .leave:
            if await listEffects.leaveGroup(id: c.id, emit: listEmit) { await dispatch(.chat(.groupChanged, chat.ref)) }
            return
        case .dissolve:
            guard let gid = c.groupId, await attempt(.dissolve, { try await self.session.dissolveGroup(gid) }) != nil else { return }
            await dispatch(.outcome(.groupDissolved))
            await dispatch(.chat(.groupChanged, chat.ref))
            return
        case .avatar(let path):
            await setGroupAvatar(path, of: chat)
            return
        }
        await chatEffects.group(mapped, in: c, members: chat.members, emit: emit(chat.ref))
    }

    /// The client is quitting: what was typed and not sent stays as the
    /// open chat's draft (seed: `onDisappear` saves the draft).
    func quit(draft: String) {
        if let c = openChat()?.conversation { chatEffects.saveDraft(draft, of: c) }
        chatTasks.stop()
        listFollowing?.cancel()
        player?.send(SIGTERM)
    }

    /// Messages of every conversation matching `query` (the store's index), newest first.
    func listHits(_ query: String) -> [AppState.GlobalHit] {
        let names = Dictionary((listEffects.read() ?? []).map { ($0.id, $0.nickname) }, uniquingKeysWith: { a, _ in a })
        return ((try? session.reader.search(query, conversationId: nil, limit: 50)) ?? []).compactMap { m in
            guard let seq = m.seq else { return nil }
            return AppState.GlobalHit(conversationId: m.conversationId, conversationName: names[m.conversationId] ?? m.conversationId,
                                      clientMsgId: m.clientMsgID, seq: seq, sendTime: m.sendTime, text: m.searchText)
        }
    }

    func hits(_ query: String) -> [AppState.SearchHit] {
        guard let c = openChat()?.conversation else { return [] }
        let me = session.credentials.imUid
        return chatEffects.search(query, in: c).map {
            AppState.SearchHit(clientMsgId: $0.clientMsgID, seq: $0.seq, sendTime: $0.sendTime, isMine: $0.sendID == me,
                               text: $0.searchText)
        }
    }
}

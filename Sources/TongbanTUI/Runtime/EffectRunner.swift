import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Performs effects: all the client's I/O goes through the view models
/// (network, store, media cache) or here (processes, decoding), and every
/// outcome comes back to the app as an intent.
@MainActor
final class EffectRunner {
    let session: Session
    let L: Localizer
    let list: ConversationListViewModel
    private(set) var chat: ConversationViewModel?
    /// Answers intents (the app's `dispatch`).
    var dispatch: (Intent) async -> Void = { _ in }
    /// Answers an intent from a callback that cannot wait.
    var post: (Intent) -> Void = { _ in }
    var pictureDecoder: PictureDecoder = .inProcess
    var downloadsDirectory: URL = Downloads.directory()
    /// How long a decoder that timed out or could not start is left alone.
    var thumbnailRetry: Duration = .seconds(5)
    var ring: () -> Void = {}
    var setTitle: (String) -> Void = { _ in }
    var notify: (DesktopNotification) -> Void = { _ in }
    /// The text in the input bar (saved as a draft when a chat closes).
    var inputText: () -> String = { "" }
    var player: Process?
    var recorder: Process?
    /// The server's part of opening the current chat (tests await it).
    private(set) var appearing: Task<Void, Never>?

    init(session: Session, localizer: Localizer) {
        self.session = session
        self.L = localizer
        self.list = ConversationListViewModel(session: session, localizer: localizer)
        list.onChange = { [weak self] in self?.publishList() }
    }

    func publishList() {
        post(.listChanged(AppState.ListSnapshot(conversations: list.conversations, totalUnread: list.totalUnread,
                                                isLoading: list.isLoading)))
    }

    func snapshot(_ vm: ConversationViewModel) -> AppState.ChatSnapshot {
        var cached = Set<String>()
        for m in vm.messages {
            if case .image(let p) = m.content, vm.isCached(p.objectKey) { cached.insert(p.objectKey) }
        }
        return AppState.ChatSnapshot(conversation: vm.conversation, messages: vm.messages, isLoading: vm.isLoading,
                                     hasMoreHistory: vm.hasMoreHistory, newMessageBannerCount: vm.newMessageBannerCount,
                                     cachedKeys: cached, senderNames: vm.senderNames, members: vm.members, group: vm.group,
                                     me: vm.myImUid)
    }

    /// Performs what one update asked for, in order. Each effect is I/O on
    /// the view models, the session or the terminal; what it learns comes
    /// back through `dispatch` as an intent for `Update.apply`, never by
    /// writing the state here.
    func run(_ effects: [Effect]) async {
        for effect in effects {
            await run(effect)
            // View models report failures in plain words; they go to the status line.
            if let e = chat?.errorMessage { chat?.errorMessage = nil; await dispatch(.status(e)) }
            if let e = list.errorMessage { list.errorMessage = nil; await dispatch(.status(e)) }
        }
    }

    func run(_ effect: Effect) async {
        switch effect {
        case .openChat(let c, let draft): await open(c, draftOfPrevious: draft)
        case .closeChat(let draft): await close(draft: draft)
        case .saveDraft(let text): chat?.saveDraft(text)
        case .refreshList: await list.refresh()
        case .pin(let id, let pinned): await list.pinConversation(id: id, isPinned: pinned)
        case .mute(let id, let muted): await list.muteConversation(id: id, isMuted: muted)
        case .leaveGroup(let id, let delete):
            await list.leaveGroup(id: id, delete: delete)
            if delete, chat?.conversation.id == id { await close(draft: inputText()) } else { chat?.reload(); chat.map(changedChat) }
        case .createGroup(let name, let unique, let members):
            if let id = await list.createGroup(name: name, uniqueName: unique, memberIds: members) { await open(id: id) }
        case .joinGroup(let unique):
            if let id = await list.joinGroup(uniqueName: unique) { await open(id: id) }
        case .group(let command): await group(command)
        case .sendMention(let text, let mentioned, let all):
            if let chat, !(await chat.sendMention(text, mentioned: mentioned, atAll: all)) { await dispatch(.sendRefused(text)) }
        case .deleteConversation(let id):
            await list.deleteConversation(id: id)
            if chat?.conversation.id == id { await close(draft: inputText()) }
        case .revoke(let id): await chat?.revokeMessage(id: id)
        case .retry(let id): await chat?.retry(messageId: id)
        case .discard(let id):
            // Waits for the send lock, which an upload may hold: not in the key loop.
            let chat = chat
            Task { await chat?.discard(messageId: id) }
        case .clearHistory: await chat?.clearHistory()
        case .loadMoreHistory: await chat?.loadMoreHistory()
        case .atBottom(let b): chat?.scrolled(toBottom: b)
        case .reveal(let seq, let id):
            chat?.reveal(seq: seq)
            await dispatch(.selectMessage(id: id))
        case .sendText(let text):
            if let chat, !(await chat.sendText(text)) { await dispatch(.sendRefused(text)) }
        case .sendMedia(let command): await send(command)
        case .startRecording: await startRecording()
        case .finishRecording(let file, let send): await finishRecording(file, send: send)
        case .searchMessages(let q): await dispatch(.messageHits(query: q, hits(q)))
        case .searchUsers(let q): await dispatch(.usersFound(query: q, await list.searchUsers(q)))
        case .startConversation(let user):
            if let c = await list.startConversation(with: user) { await open(c, draftOfPrevious: chat.map { _ in inputText() }) }
        case .loadSignals: await dispatch(.signalsLoaded(await list.signalInbox()))
        case .openSignal(let item):
            if let c = await list.openSignal(item) { await open(c, draftOfPrevious: chat.map { _ in inputText() }) }
        case .showFlash(let m, let w, let h): await showFlash(m, width: w, height: h)
        case .showPicture(let m, let index, let w, let h): await showPicture(m, index: index, width: w, height: h)
        case .completePath(let text):
            if let completed = PathCompletion.complete(text) { await dispatch(.pathCompleted(for: text, completed)) }
        case .play(let m): await play(m)
        case .openPicture(let m, let index): await openPicture(m, index: index)
        case .openExternally(let m): await openExternally(m)
        case .saveFile(let m, let thenOpen):
            if let saved = await saveFile(m), thenOpen { await view(saved) }
        case .decodeThumbnail(let key): decodeThumbnail(key)
        case .retryThumbnail(let key):
            let delay = thumbnailRetry
            Task { @MainActor [weak self] in
                try? await Task.sleep(for: delay)
                await self?.dispatch(.thumbnailRetryDue(key: key))
            }
        case .resumeSending: await list.resumeSending()
        case .ring: ring()
        case .setTitle(let title): setTitle(title)
        case .notify(let title, let body): notify(DesktopNotification(title: title, body: body))
        }
    }

    // MARK: - Chats

    /// Opens a conversation the list knows by id (a group just made or joined).
    func open(id: String) async {
        list.loadFromStore()
        guard let c = list.conversations.first(where: { $0.id == id }) else { return }
        await open(c, draftOfPrevious: chat.map { _ in inputText() })
    }

    func changedChat(_ vm: ConversationViewModel) { post(.chatChanged(snapshot(vm))) }

    func group(_ command: Effect.GroupCommand) async {
        guard let chat else { return }
        switch command {
        case .invite(let names): await chat.invite(names)
        case .kick(let name): await chat.kick(name)
        case .kickMember(let uid): await chat.kick(uid: uid)
        case .rename(let name): await chat.rename(to: name)
        case .notice(let text): await chat.setNotice(text)
        case .joinable(let on): await chat.setJoinable(on)
        case .leave:
            await list.leaveGroup(id: chat.conversation.id, delete: false)
            chat.reload()
            changedChat(chat)
        }
    }

    func open(_ c: Conversation, draftOfPrevious: String?) async {
        chat?.onDisappear(draft: draftOfPrevious)
        let vm = ConversationViewModel(conversation: c, session: session, localizer: L)
        vm.onChange = { [weak self, weak vm] in
            guard let self, let vm else { return }
            self.post(.chatChanged(self.snapshot(vm)))
        }
        chat = vm
        vm.showLocal()
        await dispatch(.chatOpened(snapshot(vm)))
        // The server's part runs beside the keys: with a slow or dead server
        // the next key must not wait for it. The list follows the read
        // marks it writes by itself (it observes the store).
        appearing = Task { @MainActor in await vm.completeAppearance() }
    }

    func close(draft: String?) async {
        chat?.onDisappear(draft: draft)
        chat = nil
        await dispatch(.chatClosed)
    }

    /// The client is quitting: what was typed and not sent stays as the
    /// open chat's draft (seed: `onDisappear` saves the draft).
    func quit(draft: String) {
        chat?.onDisappear(draft: draft)
        player?.terminate()
    }

    func hits(_ query: String) -> [AppState.SearchHit] {
        let me = session.credentials.imUid
        return (chat?.search(query) ?? []).map {
            AppState.SearchHit(clientMsgId: $0.clientMsgID, seq: $0.seq, sendTime: $0.sendTime, isMine: $0.sendID == me,
                               text: $0.searchText)
        }
    }
}

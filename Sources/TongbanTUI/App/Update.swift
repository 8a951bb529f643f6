import ChatCore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// The app's logic: a synchronous function of the state and one event,
/// answering the I/O it wants done as effects (Bubble Tea's Update).
enum Update {
    static func apply(_ event: Event, to s: inout AppState, _ L: Localizer) -> [Effect] {
        let pane = s.focus
        let effects = applied(event, to: &s, L)
        if s.focus == .messages, pane != .messages { selectNewest(&s) }
        return effects
    }

    private static func applied(_ event: Event, to s: inout AppState, _ L: Localizer) -> [Effect] {
        switch event {
        case .key(let key):
            let before = (chat: s.chat?.id, text: s.input.text)
            let effects = handle(key, &s, L)
            return effects + typingWanted(before: before, &s)
        case .sync(.connection(let c)):
            let wasOnline = s.connection == .online
            s.connection = c
            // Offline was left: back online, every room is entered again.
            guard c == .online else { return [] }
            return wasOnline ? [.resumeSending] : s.joined.backOnline()
        case .sync(.room(let push)):
            return roomPushed(push, &s, L)
        case .sync(.typing(let id, let user, let ttl)):
            return heardTyping(id, user, ttlMs: ttl, &s)
        case .sync(.readChanged(let id)):
            return s.chat?.id == id ? readCountsWanted(&s, force: true) : []
        case .sync(.storage(let full)):
            s.storeFull = full
            return []
        case .sync(.signedOut):
            // Seed 001 §3.4: back to sign-in; the draft is saved on the way out.
            s.signedOut = true
            s.wantsQuit = true
            return []
        case .sync(let update):
            // The open chat hears the same updates (its header, its group,
            // read receipts); the notifications are the app's.
            var effects = chat(.sync(update), &s)
            if case .applied(let changes) = update {
                messagesArrived(changes, &s)
                effects = Alerts.notifications(changes, &s, L) + peopleChanged(changes, &s, L) + newLogin(changes, &s, L)
                    + effects
            }
            return effects
        case .tick:
            if case .flash(_, let since, _) = s.mode, s.now.timeIntervalSince(since) >= 10 { s.mode = .normal }
            _ = s.live.expire(now: s.now)
            return []
        case .list(let event):
            if case .told(let told) = event { s.status = told.words(L) }
            return list(event, &s)
        case .chat(let event, let ref):
            guard s.chat?.ref == ref else { return [] }
            if case .told(let told) = event { s.status = told.words(L) }
            return chat(event, &s) + readCountsWanted(&s)
        case .open(let c):
            return open(c, &s)
        case .deleteConversation(let id):
            return delete(id, &s)
        case .selectMessage(let id):
            s.selectedId = id
            return []
        case .outcome(let outcome):
            s.status = words(outcome, L)
            return []
        case .status(let text):
            s.status = text
            return []
        case .messageHits(let query, let hits):
            if case .messageSearch(let search) = s.mode, search.query == query { s.mode = .messageSearch(MessageSearch(query: query, hits: hits)) }
            return []
        case .usersFound(let query, let users):
            if case .newChat(var dialog) = s.mode, dialog.query == query {
                dialog.found = users
                dialog.index = 0
                s.mode = .newChat(dialog)
            }
            if case .newGroup(var form) = s.mode, form.field == .members, form.query == query {
                form.found = users
                form.index = 0
                s.mode = .newGroup(form)
            }
            return []
        case .listHits(let query, let hits):
            // Only the answer to what is typed now counts.
            if case .listSearch(let q) = s.mode, q == query { s.listHits = hits }
            return []
        case .composed(let text):
            s.input = InputLine(text: text)
            s.focus = .input
            return []
        case .people(let event):
            return people(event, &s, L)
        case .rooms(let event):
            return rooms(event, &s, L)
        case .favoritesLoaded(let items):
            if let items { s.mode = .favorites(Pick(items)) }
            return []
        case .signals(let found):
            if case .signals(var view) = s.mode {
                view.loaded(found)
                s.mode = .signals(view)
            }
            return []
        case .readCounts(let id, let counts):
            s.live.counted(counts, in: id)
            return []
        case .readersLoaded(let id, let seq, let answer):
            if case .readers(var page) = s.mode, page.conversationId == id, page.seq == seq {
                page.read = answer.read
                page.unread = answer.unread
                s.mode = .readers(page)
            }
            return []
        case .flashShown(let m, let image):
            s.mode = .flash(m, since: s.now, image)
            return []
        case .pictureShown(let m, let index, let image):
            s.mode = .picture(m, index: index, image)
            return []
        case .thumbnailDecoded(let key, let outcome):
            s.thumbnails[key] = outcome
            return outcome == .retryLater ? [.retryThumbnail(key: key)] : []
        case .thumbnailRetryDue(let key):
            s.thumbnails[key] = nil
            return thumbnailsWanted(&s)
        case .playing(let id):
            s.playingId = id
            return []
        case .recordingStarted(let file):
            s.mode = .recording(file: file, since: s.now)
            return []
        case .sendRefused(let text):
            s.input = InputLine(text: text)
            return []
        case .pathCompleted(let text, let completed):
            // Only if nothing was typed meanwhile.
            guard s.input.text == text else { return [] }
            s.input = InputLine(text: completed.text)
            if completed.choices.count > 1 { s.status = completed.choices.prefix(8).joined(separator: "  ") }
            return []
        }
    }

    /// One event of the list, folded by its own update. The unread total
    /// retitles the terminal; a rise that the store brought rings (one
    /// from unmuting a chat does not).
    static func list(_ event: ListEvent, _ s: inout AppState) -> [Effect] {
        let before = s.list.totalUnread
        var effects = s.list.update(event).map(Effect.list)
        s.listIndex = min(s.listIndex, max(0, s.visibleConversations.count - 1))
        if case .stored = event, s.list.totalUnread > before { effects += Alerts.ring(&s) }
        if s.list.totalUnread != before { effects.append(.setTitle(s.titleText)) }
        return effects + listFacesWanted(&s)
    }

    /// Takes a conversation off the list at once (the server is asked
    /// beside); an open chat on it closes.
    static func delete(_ id: String, _ s: inout AppState) -> [Effect] {
        let closing = s.chat?.id == id ? close(&s) : []
        return closing + list(.change(id: id, .delete), &s)
    }

    /// One event of the open chat, folded by its own update; the effects it
    /// wants are the runner's, the words of a failure the status line's.
    static func chat(_ event: ChatEvent, _ s: inout AppState) -> [Effect] {
        guard var chat = s.chat else { return [] }
        let wanted = chat.update(event)
        s.chat = chat
        if case .windowRead(let r) = event, s.draftFromStore, let c = r.conversation {
            s.draftFromStore = false
            s.input = InputLine(text: c.draftText ?? "")
        }
        // A group's picture for the header, once its info is read.
        let picture = chat.group.map { $0.avatar.hasPrefix("chat/") ? avatarWanted($0.avatar, &s) : [] } ?? []
        return wanted.map { .chat($0, for: chat.conversation, chat.ref) } + thumbnailsWanted(&s) + picture
    }

    /// Opens `c` in the message pane: the chat before it keeps what was
    /// typed as its draft, the new one starts from its own draft.
    static func open(_ c: Conversation, _ s: inout AppState) -> [Effect] {
        let left = s.chat == nil ? [] : chat(.disappear(draft: s.draft), &s)
        s.editing = nil
        s.replying = nil
        s.marked = nil
        s.openings += 1
        var opened = ChatState(conversation: c, me: s.myImUid)
        let avatar = c.isGroup ? "" : c.avatar
        opened.generation = s.openings
        s.chat = opened
        s.input = InputLine(text: c.draftText ?? "")
        s.draftFromStore = true
        s.selectedId = nil
        s.scroll = 0
        s.focus = .input
        s.narrowShowsMessages = true
        refreshRoomChat(&s)
        // The peer's picture for the header (a group's once its info is read: `chat`).
        let picture = avatar.hasPrefix("chat/") ? avatarWanted(avatar, &s) : []
        return left + chat(.appear, &s) + picture
    }

    /// Closes the open chat; what was typed stays as its draft.
    static func close(_ s: inout AppState) -> [Effect] {
        let left = chat(.disappear(draft: s.draft), &s)
        s.editing = nil
        s.replying = nil
        s.marked = nil
        s.chat = nil
        s.input = InputLine()
        s.focus = .list
        s.narrowShowsMessages = false
        return left
    }

    /// The list's pictures on a wide screen (seed 000 §五), for the rows a
    /// screen can show: each decoded once, as avatars are.
    static func listFacesWanted(_ s: inout AppState) -> [Effect] {
        guard s.size.width >= ListFace.minimumWidth else { return [] }
        var effects: [Effect] = []
        for c in s.list.conversations.prefix(max(1, s.size.height)) where !c.avatar.isEmpty {
            effects += avatarWanted(c.avatar, &s)
        }
        return effects
    }

    /// Thumbnails of the open chat's cached pictures that nobody asked
    /// for yet: each is decoded once, beside the keys.
    static func thumbnailsWanted(_ s: inout AppState) -> [Effect] {
        guard let chat = s.chat else { return [] }
        var effects: [Effect] = []
        for m in chat.messages where !m.isRecalled {
            // A picture, or the first pictures of several (drawn side by side).
            let keys = m.content.image.map { [$0.objectKey] } ?? Array((m.content.multiImage?.multiObjectKeys ?? []).prefix(Bubbles.multiShown))
            for key in keys where s.thumbnails[key] == nil && chat.cachedKeys.contains(key) {
                s.thumbnails[key] = .pending
                effects.append(.decodeThumbnail(key: key))
            }
        }
        // A card's person's picture, as avatars are drawn.
        for m in chat.messages where !m.isRecalled {
            if let avatar = m.content.card?.avatar, !avatar.isEmpty { effects += avatarWanted(avatar, &s) }
        }
        return effects
    }

    // MARK: - Keys

    /// One key: a resize redraws; an open mode (a prompt, an overlay, a
    /// picture) takes every key first; then `@` and path completion in the
    /// input; then the key map of the focused pane (`Binding.table`, rebound
    /// by keys.json) names an action; an unbound key in the input is typed.
    static func handle(_ key: Key, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        s.status = nil
        // Raw mode: Ctrl-C arrives as a key, and means quit everywhere.
        if key == .ctrl("c") {
            var effects: [Effect] = []
            // A recording in progress is dropped, not left running.
            if case .recording(let file, _) = s.mode { effects.append(.finishRecording(file: file, send: false)) }
            s.mode = .normal
            s.wantsQuit = true
            return effects
        }
        if key == .resize {
            // A resize is not a key: it answers no prompt and closes no view;
            // a full-screen picture is fitted to the new size.
            if case .picture(let m, let index, _) = s.mode {
                return [.showPicture(m, index: index, width: s.size.width, height: s.size.height)]
            }
            return listFacesWanted(&s)
        }
        if case .mouse(let event) = key { return mouse(event, &s, L) }
        if s.mode != .normal { return handleMode(key, &s, L) }
        // Ctrl-X Ctrl-E: compose in the editor, as bash and zsh do.
        if s.focus == .input, s.chat != nil, key == .ctrl("x") { s.awaitingCtrlE = true; return [] }
        if s.awaitingCtrlE {
            s.awaitingCtrlE = false
            if key == .ctrl("e"), s.focus == .input { return [.compose(s.input.text)] }
        }
        if s.focus == .input, let effects = mentionKey(key, &s) { return effects }
        if s.focus == .input, let effects = emojiKey(key, &s) { return effects }
        // Listing a directory is I/O: the runner does it and answers with `.pathCompleted`.
        if key == .tab, s.focus == .input, PathCompletion.applies(to: s.input.text) { return [.completePath(s.input.text)] }
        let scope: Binding.Scope = s.focus == .list ? .list : s.focus == .messages ? .messages : .input
        guard let action = s.keyMap.action(for: key, in: scope) else {
            if s.focus == .input { typeKey(key, &s) }
            return []
        }
        switch action {
        case .focusNext, .focusPrevious:
            cycleFocus(&s, forward: action == .focusNext)
            return []
        case .help:
            s.mode = .help
            return []
        case .secretChat:
            let convs = s.visibleConversations
            let row = s.focus == .list ? (s.listIndex < convs.count ? convs[s.listIndex] : nil) : s.chat?.conversation
            return row.map { startSecret(with: $0, &s, L) } ?? []
        case .quit:
            s.wantsQuit = true
            return []
        default:
            switch scope {
            case .list: return listAction(action, &s, L)
            case .messages: return messagesAction(action, &s, L)
            case .input, .everywhere: return inputAction(action, &s, L)
            }
        }
    }

    static func cycleFocus(_ s: inout AppState, forward: Bool) {
        let order: [PaneFocus] = s.chat == nil ? [.list] : [.list, .messages, .input]
        guard let i = order.firstIndex(of: s.focus) else { s.focus = .list; return }
        s.focus = order[(i + (forward ? 1 : order.count - 1)) % order.count]
        s.narrowShowsMessages = s.focus != .list
    }

    static func listAction(_ action: Action, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        let convs = s.visibleConversations
        let current = s.listIndex < convs.count ? convs[s.listIndex] : nil
        if let c = current, c.isRoom, let effects = roomListAction(action, c, &s, L) { return effects }
        switch action {
        case .listDown: s.listIndex = min(s.listIndex + 1, max(0, convs.count - 1))
        case .listUp: s.listIndex = max(0, s.listIndex - 1)
        case .listTop: s.listIndex = 0
        case .listBottom: s.listIndex = max(0, convs.count - 1)
        case .listOpen: if let c = current { return open(c, &s) }
        case .listPin: if let c = current { return list(.change(id: c.id, .pin(!c.isPinned, at: Self.ms(s.now))), &s) }
        case .listMute: if let c = current { return list(.change(id: c.id, .mute(!c.isMuted)), &s) }
        case .listDelete:
            if let c = current {
                s.mode = .confirm(c.isGroup && c.isMember ? .leaveGroup(id: c.id, name: c.nickname)
                                                         : .deleteConversation(id: c.id, name: c.nickname))
            }
        case .listNew: s.mode = .newChat(NewChatDialog())
        case .listSignals:
            let (view, effects) = SignalsView.open()
            s.mode = .signals(view)
            return effects
        case .listFavorites: return [.loadFavorites]
        case .listContacts: return openContacts(&s, L)
        case .listMe: return openMyPage(&s)
        case .listRefresh: return [.list(.refresh)]
        case .listSearch: s.mode = .listSearch("")
        case .listBack:
            if s.chat != nil { s.focus = .messages; s.narrowShowsMessages = true }
        default: break
        }
        return []
    }

    /// Unix milliseconds of the time on screen.
    static func ms(_ date: Date) -> Int { Int(date.timeIntervalSince1970 * 1000) }
}

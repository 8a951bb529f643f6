import ChatCore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// The message pane's keys: moving the selection and scrolling, and what
/// each action does to the selected (or marked) messages.
extension Update {
    /// The message pane's actions that need a selected message.
    static let actsOnSelection: Set<Action> = [
        .messagesEnter, .messagesOpen, .messagesRevoke, .messagesDiscard, .messagesEdit, .messagesReply, .messagesFavorite,
        .messagesCopy, .messagesMenu, .messagesForward, .messagesMark, .messagesReaders,
        .messagesReact1, .messagesReact2, .messagesReact3, .messagesReact4, .messagesReact5, .messagesReact6,
    ]

    /// Of those, the ones that act on the marked messages while marking (`v`).
    static let actsOnMarked: Set<Action> = [.messagesFavorite, .messagesForward, .messagesForwardMerged, .messagesDiscard, .messagesCopy]

    static let staysInSecret: Set<Action> = [.messagesForward, .messagesForwardMerged, .messagesFavorite]

    static func messagesAction(_ action: Action, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        guard let chat = s.chat else { s.focus = .list; return [] }
        // What a secret chat says stays in it (PROTOCOL.md v4): no forwards out, no favourites.
        if Self.staysInSecret.contains(action), ConversationIDHelper.isSecret(chat.conversation.id) {
            s.status = L.string("ui.secret.noForward")
            return []
        }
        // The pane shows the scroll as the message list laid it out.
        let layout = MessageListWidget.layout(s, in: ScreenLayout(s).messages, L)
        s.scroll = layout.scroll
        let count = s.bubbles.count
        // A key that acts on the selected message says so when none is (after PageUp, or `G`).
        if Self.actsOnSelection.contains(action), s.selectedMessage == nil, !(s.marked != nil && Self.actsOnMarked.contains(action)) {
            s.status = L.string(count == 0 ? "ui.noMessages" : "ui.selectFirst")
            return []
        }
        switch action {
        case .messagesUp:
            s.selected = min((s.selected ?? -1) + 1, max(0, count - 1))
            if s.selected == count - 1, chat.hasMoreHistory { return Self.chat(.loadMore, &s) }
        case .messagesDown:
            if let i = s.selected { s.selected = i > 0 ? i - 1 : nil }
            if s.selected == nil { s.scroll = 0; return Self.chat(.scrolled(toBottom: true), &s) }
        case .messagesPageUp:
            s.scroll += 10
            let more = s.scroll >= layout.maxScroll && chat.hasMoreHistory
            return Self.chat(.scrolled(toBottom: false), &s) + (more ? Self.chat(.loadMore, &s) : [])
        case .messagesPageDown:
            s.scroll = max(0, s.scroll - 10)
            if s.scroll == 0 { return Self.chat(.scrolled(toBottom: true), &s) }
        case .messagesBottom:
            s.scroll = 0
            s.selectedId = nil
            return Self.chat(.scrolled(toBottom: true), &s)
        case .messagesRevoke:
            guard let m = s.selectedMessage else { return [] }
            guard m.isMe, m.can(.revocable) else { s.status = L.string("ui.notMine"); return [] }
            s.mode = .confirm(.revoke(messageId: m.id))
        case .messagesDiscard:
            // A failed message is discarded (the server never had it); one
            // the server has is deleted for me only.
            if let marked = s.marked, !marked.isEmpty {
                s.mode = .confirm(.deleteForMe(messageIds: marked))
                return []
            }
            guard let m = s.selectedMessage else { return [] }
            if m.isMe, m.status == .failed { s.mode = .confirm(.discard(messageId: m.id)); return [] }
            guard m.status == .success, m.seq > 0 else { s.status = L.string("ui.notDiscardable"); return [] }
            s.mode = .confirm(.deleteForMe(messageIds: [m.id]))
        case .messagesEnter:
            guard let m = s.selectedMessage else { return [] }
            if m.status == .failed { return [.retry(messageId: m.id)] }
            if s.chat?.conversation.isGroup == true, !m.isMe, s.people.blockedImUids.contains(m.senderId), !s.unfolded.contains(m.id) {
                s.unfolded.insert(m.id)
                return []
            }
            guard !m.isRecalled else { return [] }
            return perform(MessageKinds.kind(for: m.type).primaryAction(m), on: m, &s, L)
        case .messagesOpen:
            if let m = s.selectedMessage { return Openable.open(m, &s, L) }
        case .messagesReact1, .messagesReact2, .messagesReact3, .messagesReact4, .messagesReact5, .messagesReact6:
            guard let m = s.selectedMessage else { return [] }
            guard m.allows(.reactable) else { s.status = L.string("ui.notReactable"); return [] }
            let emoji = QuickReactions.emoji(for: action)
            return [.react(messageId: m.id, emoji: emoji, on: !m.reactions.users(of: emoji).contains(s.myImUid))]
        case .messagesMenu:
            guard let m = s.selectedMessage else { return [] }
            let items = MessageMenu.items(for: m, s, L)
            guard !items.isEmpty else { s.status = L.string("ui.menu.empty"); return [] }
            s.mode = .actions(Pick(items))
        case .messagesSelect:
            // `v` starts (or ends) marking messages; Space marks the selected one.
            s.marked = s.marked == nil ? [] : nil
            s.status = s.marked == nil ? nil : L.string("ui.selecting", ["n": "0"])
        case .messagesReaders:
            guard let m = s.selectedMessage else { return [] }
            guard m.isMe, s.chat?.conversation.isGroup == true, m.status == .success, m.seq > 0 else {
                s.status = L.string("ui.readers.onlyMine")
                return []
            }
            return showReaders(m, &s, L)
        case .messagesMark:
            guard var marked = s.marked, let m = s.selectedMessage else { return [] }
            guard m.allows(.forwardable) else { s.status = L.string("ui.notForwardable"); return [] }
            if let i = marked.firstIndex(of: m.id) { marked.remove(at: i) } else { marked.append(m.id) }
            s.marked = marked
            s.status = L.string("ui.selecting", ["n": String(marked.count)])
        case .messagesForward:
            // The marked messages (oldest first, as they were sent), else the selected one.
            let ids = MessageMenu.forwardable(s)
            guard !ids.isEmpty else { s.status = L.string("ui.notForwardable"); return [] }
            s.mode = .forward(ForwardPicker(messages: ids, merged: false))
        case .messagesForwardMerged:
            // The marked messages as one 聊天记录.
            let ids = MessageMenu.forwardable(s)
            guard s.marked?.isEmpty == false, !ids.isEmpty else { s.status = L.string("ui.markFirst"); return [] }
            s.mode = .forward(ForwardPicker(messages: ids, merged: true))
        case .messagesCopy:
            guard let m = s.selectedMessage else { return [] }
            guard !m.isRecalled, let text = m.text else { s.status = L.string("ui.copy.notText"); return [] }
            return [.copy(text)]
        case .messagesFavorite:
            if let marked = s.marked, !marked.isEmpty {
                s.marked = nil
                let keepable = s.bubbles.filter { marked.contains($0.id) && $0.allows(.keepable) }.map(\.id)
                guard !keepable.isEmpty else { s.status = L.string("ui.notKeepable"); return [] }
                return marked.filter(keepable.contains).map { .addFavorite(messageId: $0) }
            }
            guard let m = s.selectedMessage else { return [] }
            guard m.allows(.keepable) else { s.status = L.string("ui.notKeepable"); return [] }
            return [.addFavorite(messageId: m.id)]
        case .messagesReply:
            guard let m = s.selectedMessage else { return [] }
            guard m.allows(.quotable) else { s.status = L.string("ui.notReplyable"); return [] }
            if let e = s.editing { s.input = e.stashed; s.editing = nil }
            let name = m.isMe ? L.string("group.you")
                : chat.conversation.isGroup ? chat.senderNames[m.senderId] ?? m.senderId : chat.conversation.nickname
            s.replying = AppState.Replying(messageId: m.id, senderName: TerminalSanitizer.oneLine(name),
                                           firstLine: TerminalSanitizer.oneLine(MessageKinds.summary(of: m, localizer: L)))
            s.focus = .input
        case .messagesEdit:
            guard let m = s.selectedMessage else { return [] }
            guard m.isEditable, let text = m.text else { s.status = L.string("ui.notEditable"); return [] }
            s.replying = nil
            // A second `e` while editing: what was typed before the first is what stays aside.
            let stashed = s.editing?.stashed ?? s.input
            s.editing = AppState.Editing(messageId: m.id, original: text, stashed: stashed)
            s.input = InputLine(text: text)
            s.focus = .input
            s.status = L.string("ui.editing")
        case .messagesType: s.focus = .input
        case .messagesSettings:
            // A single chat's `,` is the peer's page; a group's, its settings; a room's, its page.
            if let c = s.chat?.conversation, c.isRoom { s.mode = .roomPage(RoomPage()); return [] }
            if let c = s.chat?.conversation, !c.isGroup, c.targetUid > 0 { return [.people(.openPeer(uid: c.targetUid))] }
            s.mode = .settings(member: 0)
            if let avatar = s.chat?.group?.avatar, !avatar.isEmpty { return avatarWanted(avatar, &s) }
        case .messagesSearch: s.mode = .messageSearch(MessageSearch())
        case .messagesBack:
            s.focus = .list
            s.narrowShowsMessages = false
        default: break
        }
        return []
    }
}

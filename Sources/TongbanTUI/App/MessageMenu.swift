import ChatCore
import TerminalUI

/// What can be done with a message (v3): the menu `.` opens (seed 004's long
/// press) and what `f` forwards. Pure: it reads the state and changes nothing.
enum MessageMenu {
    /// What `f` forwards: the marked messages in the order they were sent,
    /// else the selected one; never a flash image, a revoked or unsent message.
    static func forwardable(_ s: AppState) -> [String] {
        let bubbles = s.bubbles
        let ids = s.marked.map { Set($0) } ?? Set(s.selectedMessage.map { [$0.id] } ?? [])
        return bubbles.reversed().filter { ids.contains($0.id) && $0.allows(.forwardable) }
            .map(\.id)
    }

    /// Seed 004's long-press menu for `m`: what its kind does on Enter and
    /// `o`, then what any message allows as it stands (reply, keep, copy,
    /// edit, delete, revoke) and the reaction row, each with its key.
    static func items(for m: ChatMessage, _ s: AppState, _ L: Localizer) -> [AppState.MenuItem] {
        func item(_ a: Action, _ title: String) -> AppState.MenuItem {
            let key = s.keyMap.rebound.first { $0.action == a.rawValue }?.key ?? Binding.table.first { $0.action == a }?.keys.first
            return AppState.MenuItem(action: a, key: key.map(HelpWidget.label) ?? "", title: L.string(title))
        }
        var items: [AppState.MenuItem] = []
        if m.status == .failed {
            return [item(.messagesEnter, "ui.menu.retry"), item(.messagesDiscard, "ui.menu.discard")]
        }
        guard !m.isRecalled else { return [] }
        let kind = MessageKinds.kind(for: m.type)
        let primary: [MessageAction: String] = [.showPictures: "ui.menu.view", .confirmFlash: "ui.menu.viewFlash", .play: "ui.menu.play",
                                                .save: "ui.menu.save", .showQuoted: "ui.menu.quoted", .showRecord: "ui.menu.record"]
        if let title = primary[kind.primaryAction(m)] { items.append(item(.messagesEnter, title)) }
        // `o`: a picture or file, or the links in the text (Openable).
        if !Openable.of(m).isEmpty { items.append(item(.messagesOpen, "ui.menu.open")) }
        guard m.status == .success, m.seq > 0 else { return items }
        // Seed 004's order: 回复 / 撤回 / 转发 / 多选 / 收藏, then the rest.
        if m.can(.quotable) { items.append(item(.messagesReply, "ui.menu.reply")) }
        if m.isMe, m.can(.revocable) { items.append(item(.messagesRevoke, "ui.menu.revoke")) }
        if m.can(.forwardable) {
            items.append(item(.messagesForward, "ui.menu.forward"))
            items.append(item(.messagesSelect, "ui.menu.select"))
        }
        if m.can(.keepable) { items.append(item(.messagesFavorite, "ui.menu.favorite")) }
        if m.isMe, s.chat?.conversation.isGroup == true { items.append(item(.messagesReaders, "ui.menu.readers")) }
        if m.text != nil { items.append(item(.messagesCopy, "ui.menu.copy")) }
        if m.isEditable { items.append(item(.messagesEdit, "ui.menu.edit")) }
        items.append(item(.messagesDiscard, "ui.menu.delete"))
        if m.can(.reactable) {
            var react = item(.messagesReact1, "ui.menu.react")
            react.key = "1-6"
            react.title += " " + QuickReactions.all.joined(separator: " ")
            items.append(react)
        }
        return items
    }
}

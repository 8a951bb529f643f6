import ChatCore
import ChatViewModels
import TerminalUI

/// `,` in a group: its name, unique name, notice and members, and a menu:
/// the owner's changes, inviting, leaving, clearing.
enum GroupSettingsWidget {
    static func lines(_ chat: ChatState, selected: Int, _ L: Localizer, rows: Int) -> [(String, Style)] {
        let c = chat.conversation
        let isOwner = chat.group != nil && chat.group?.ownerId == chat.me && c.isMember
        var out: [(String, Style)] = [(TerminalSanitizer.oneLine(c.nickname) + ConversationMarks.count(c, L), Theme.title)]
        if let g = chat.group {
            out.append((L.string("ui.group.unique", ["unique": TerminalSanitizer.oneLine(g.uniqueName)])
                        + (g.joinable ? "" : "  " + L.string("ui.group.closed")), Style()))
            if !g.notice.isEmpty { out.append((L.string("ui.group.notice", ["notice": TerminalSanitizer.oneLine(g.notice)]), Style())) }
        }
        if !c.isMember { out.append((L.string("ui.group.left"), Theme.error)) }
        var menu: [(String, Style)] = []
        if isOwner {
            menu.append((L.string("ui.group.menu.rename"), Style()))
            menu.append((L.string("ui.group.menu.notice"), Style()))
        }
        if c.isMember { menu.append((L.string("ui.group.menu.invite"), Style())) }
        if isOwner {
            menu.append((L.string("ui.group.menu.kick"), Style()))
            menu.append((L.string(chat.group?.joinable == false ? "ui.group.menu.open" : "ui.group.menu.close"), Style()))
        }
        if c.isMember { menu.append(("l  " + L.string("ui.group.leave"), Theme.error)) }
        if isOwner { menu.append(("D  " + L.string("ui.group.dissolve"), Theme.error)) }
        menu.append(("c  " + L.string("ui.settings.clear"), Theme.error))

        // Members, owner first: a window that keeps the selected one in
        // sight, and how many more there are.
        let room = max(1, rows - out.count - menu.count - 3)
        let members = chat.members
        let first = members.count <= room ? 0 : min(max(0, selected - room / 2), members.count - room)
        out.append(("", Style()))
        for (i, m) in members.enumerated().dropFirst(first).prefix(room) {
            let role = m.isOwner ? "  " + L.string("cli.group.owner") : ""
            let account = m.account.map { "  @" + $0 } ?? ""
            let style = isOwner && i == selected ? Theme.selected : m.isOwner ? Theme.prompt : Style()
            out.append((TerminalSanitizer.oneLine("· \(m.username)\(account)\(role)"), style))
        }
        let hidden = members.count - min(room, members.count)
        if hidden > 0 { out.append((L.string("ui.group.more", ["n": String(hidden)]), Theme.dim)) }
        out.append(("", Style()))
        return out + menu
    }
}

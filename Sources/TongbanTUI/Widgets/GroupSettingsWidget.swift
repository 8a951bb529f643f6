import ChatCore
import TerminalUI

/// `,` in a group: its name, unique name, notice and members, what the
/// owner may change (by slash command) and leaving.
enum GroupSettingsWidget {
    static func lines(_ chat: AppState.ChatSnapshot, _ L: Localizer, rows: Int) -> [(String, Style)] {
        let c = chat.conversation
        var out: [(String, Style)] = [(TerminalSanitizer.oneLine(c.nickname) + ConversationMarks.count(c, L), Theme.title)]
        if let g = chat.group {
            out.append((L.string("ui.group.unique", ["unique": TerminalSanitizer.oneLine(g.uniqueName)])
                        + (g.joinable ? "" : "  " + L.string("ui.group.closed")), Style()))
            if !g.notice.isEmpty { out.append((L.string("ui.group.notice", ["notice": TerminalSanitizer.oneLine(g.notice)]), Style())) }
        }
        if !c.isMember { out.append((L.string("ui.group.left"), Theme.error)) }
        out.append(("", Style()))
        // Members, owner first; as many as fit, then how many more.
        let room = max(1, rows - out.count - 7)
        for m in chat.members.prefix(room) {
            let role = m.isOwner ? "  " + L.string("cli.group.owner") : ""
            let account = m.account.map { "  @" + $0 } ?? ""
            out.append((TerminalSanitizer.oneLine("· \(m.username)\(account)\(role)"),
                        m.isOwner ? Theme.prompt : Style()))
        }
        if chat.members.count > room {
            out.append((L.string("ui.group.more", ["n": String(chat.members.count - room)]), Theme.dim))
        }
        out.append(("", Style()))
        if c.isMember {
            out.append((L.string(chat.group?.ownerId == chat.me ? "ui.group.ownerCommands" : "ui.group.memberCommands"), Theme.dim))
            out.append(("l  " + L.string("ui.group.leave"), Theme.error))
        }
        out.append(("c  " + L.string("ui.settings.clear"), Theme.error))
        return out
    }
}

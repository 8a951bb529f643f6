import ChatCore
import TerminalUI

/// The last row: the connection (or a full disk), then a prompt, a
/// recording clock, a message, or the focused pane's key hints.
enum StatusBarWidget {
    static func render(_ s: AppState, _ L: Localizer, into g: inout Grid, _ area: Rect) {
        let y = area.y, w = area.width
        g.fill(x: area.x, y: y, w: w, h: 1, style: Theme.status)
        let conn: String
        switch s.connection {
        case .online: conn = "● " + L.string("ui.status.online")
        case .connecting: conn = "◌ " + L.string("ui.status.connecting")
        case .offline(let why): conn = "○ " + L.string("ui.status.offline", ["reason": TerminalSanitizer.oneLine(why)])
        }
        var x = area.x + 1
        if s.storeFull {
            x += g.put("⚠ " + L.string("ui.status.diskFull"), x: x, y: y, style: Theme.merge(Theme.status, Theme.error), maxWidth: w / 2)
        } else {
            x += g.put(conn, x: x, y: y, style: Theme.status, maxWidth: w / 3)
        }
        x += 2
        if case .recording(_, let since) = s.mode {
            let seconds = max(0, Int(s.now.timeIntervalSince(since)))
            let clock = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
            g.put("● " + clock + "  " + L.string("ui.recording"), x: x, y: y, style: Theme.merge(Theme.status, Theme.error),
                  maxWidth: w - x - 1)
        } else if case .confirm(let what) = s.mode {
            g.put(TerminalSanitizer.oneLine(prompt(what, L)), x: x, y: y, style: Theme.merge(Theme.status, Theme.prompt),
                  maxWidth: w - x - 1)
        } else if let status = s.status {
            g.put(TerminalSanitizer.sanitize(status), x: x, y: y, style: Theme.merge(Theme.status, Theme.error), maxWidth: w - x - 1)
        } else if case let emoji = Update.emojiCandidates(s), !emoji.isEmpty {
            // `:name` completion: Tab takes the first.
            let names = emoji.map { $0.emoji + " " + $0.name }.joined(separator: "  ")
            g.put(TextWrap.truncate(L.string("ui.emoji.hint", ["names": names]), width: w - x - 1), x: x, y: y, style: Theme.status,
                  maxWidth: w - x - 1)
        } else if s.focus == .input, case let candidates = Update.mentionCandidates(s), !candidates.isEmpty {
            // `@` completion: Tab takes the first.
            let names = candidates.map { c -> String in
                switch c {
                case .all: return "@" + s.allMentionLabel
                case .member(let m): return "@" + TerminalSanitizer.oneLine(m.username)
                }
            }
            g.put(TextWrap.truncate(L.string("ui.mention.hint", ["names": names.joined(separator: "  ")]), width: w - x - 1),
                  x: x, y: y, style: Theme.status, maxWidth: w - x - 1)
        } else {
            let scope: Binding.Scope
            switch s.focus {
            case .list: scope = .list
            case .messages: scope = .messages
            case .input: scope = .input
            }
            let rows = s.visibleConversations
            let onRoom = s.focus == .list && s.listIndex < rows.count && rows[s.listIndex].isRoom
            let hints = Binding.hints(for: scope, s.keyMap, L, onRoom: onRoom)
            g.put(TextWrap.truncate(hints, width: w - x - 1), x: x, y: y, style: Theme.status, maxWidth: w - x - 1)
        }
    }

    static func prompt(_ what: AppState.Confirm, _ L: Localizer) -> String {
        switch what {
        case .deleteConversation(_, let name): return L.string("ui.confirm.delete", ["name": name])
        case .leaveGroup(_, let name): return L.string("ui.confirm.leaveGroup", ["name": name])
        case .kick(_, let name): return L.string("ui.confirm.kick", ["name": name])
        case .dissolveGroup(let name): return L.string("ui.confirm.dissolve", ["name": name])
        case .revoke: return L.string("ui.confirm.revoke")
        case .discard: return L.string("ui.confirmDiscard")
        case .deleteForMe(let ids) where ids.count > 1: return L.string("ui.confirmDeleteForMe.many", ["n": String(ids.count)])
        case .deleteForMe: return L.string("ui.confirmDeleteForMe")
        case .viewFlash: return L.string("ui.confirm.flash")
        case .clearHistory: return L.string("ui.confirm.clear")
        case .leaveRoom(_, let name): return L.string("ui.confirm.leaveRoom", ["name": name])
        case .roomKick(_, _, let name, let ban): return L.string(ban ? "ui.confirm.roomBan" : "ui.confirm.roomKick", ["name": name])
        case .dropRoom(_, let name): return L.string("ui.confirm.dropRoom", ["name": name])
        }
    }
}

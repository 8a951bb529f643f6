import ChatCore
import TerminalUI

/// The open chat: header, messages, input bar.
enum ChatPaneWidget {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions, _ layout: ScreenLayout,
                       into g: inout Grid, _ area: Rect) {
        guard let chat = s.chat else {
            let hint = L.string(s.list.conversations.isEmpty ? "ui.empty.title" : "ui.noChat")
            g.put(hint, x: area.x + max(0, (area.width - DisplayWidth.of(hint)) / 2), y: area.y + area.height / 2, style: Theme.dim)
            return
        }
        let x = area.x, y = area.y, w = area.width
        var hx = x + 1
        // A room's header is the room as pushed (name, who is here, topic), not the store's row.
        let room = s.room(chat.id)
        let c = room?.conversation ?? chat.conversation
        // The peer's or group's picture, two cells wide, once decoded.
        let avatar = c.isGroup ? chat.group?.avatar ?? "" : c.avatar
        if case .ready(let image)? = s.thumbnails[avatar] {
            AvatarWidget.place(image, avatar, columns: 2, rows: 1, options, into: &g, at: (hx, y))
            hx += 3
        }
        let after = ConversationMarks.text(c, L)
        let nameW = max(1, w - 12 - DisplayWidth.of(after))
        if room != nil { hx += g.put("# ", x: hx, y: y, style: Theme.dim) }
        hx += g.put(TextWrap.truncate(TerminalSanitizer.sanitize(c.nickname), width: nameW), x: hx, y: y, style: Theme.title, maxWidth: nameW)
        hx += g.put(after, x: hx, y: y, style: Theme.dim, maxWidth: max(0, x + w - hx - 1))
        let typers = s.live.typers(in: c.id, now: s.now)
        if let typing = TypingWords.text(typers, isGroup: c.isMultiParty, names: chat.senderNames, L) {
            g.put("  " + typing, x: hx, y: y, style: Theme.prompt, maxWidth: max(0, x + w - hx - 1))
        } else if let room, !room.info.topic.isEmpty {
            g.put("  " + TerminalSanitizer.oneLine(room.info.topic), x: hx, y: y, style: Theme.dim, maxWidth: max(0, x + w - hx - 1))
        } else if c.isOnline && !c.isMultiParty {
            g.put(" ● " + L.string("ui.online"), x: hx, y: y, style: Theme.online)
        }
        g.put(String(repeating: "─", count: w), x: x, y: y + 1, style: Theme.border)
        g.put(String(repeating: "─", count: w), x: x, y: (layout.replyNote ?? layout.input).y - 1, style: Theme.border)
        InputBarWidget.render(s.input, focused: s.focus == .input, into: &g, layout.input)
        if let note = layout.replyNote, let r = s.replying {
            let text = L.string("ui.replyingTo", ["name": r.senderName, "text": r.firstLine])
            g.put(TextWrap.truncate(TerminalSanitizer.oneLine(text), width: max(1, note.width - 2)), x: note.x + 1, y: note.y,
                  style: Theme.dim, maxWidth: note.width - 1)
        }
        MessageListWidget.render(s, L, options, into: &g, layout.messages)
    }
}

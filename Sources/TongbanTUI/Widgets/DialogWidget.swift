import ChatCore
import ChatMedia
import ChatViewModels
import TerminalUI

/// A framed box in the middle of the screen.
enum DialogWidget {
    /// Draws the box; returns where its text starts.
    @discardableResult
    static func render(title: String, lines: [(String, Style)], into g: inout Grid, _ area: Rect) -> (x: Int, y: Int) {
        let width = area.width, height = area.height
        let bw = min(width - 4, max(30, (lines.map { DisplayWidth.of($0.0) }.max() ?? 0) + 4, DisplayWidth.of(title) + 6))
        let bh = min(height - 2, lines.count + 2)
        let bx = area.x + (width - bw) / 2, by = area.y + max(0, (height - bh) / 2)
        g.fill(x: bx, y: by, w: bw, h: bh, style: Style())
        g.put("┌" + String(repeating: "─", count: bw - 2) + "┐", x: bx, y: by, style: Theme.border)
        g.put(" " + title + " ", x: bx + 2, y: by, style: Theme.title, maxWidth: bw - 4)
        for i in 1..<(bh - 1) {
            g.put("│", x: bx, y: by + i, style: Theme.border)
            g.put("│", x: bx + bw - 1, y: by + i, style: Theme.border)
            if i - 1 < lines.count { g.put(lines[i - 1].0, x: bx + 2, y: by + i, style: lines[i - 1].1, maxWidth: bw - 4) }
        }
        g.put("└" + String(repeating: "─", count: bw - 2) + "┘", x: bx, y: by + bh - 1, style: Theme.border)
        return (bx + 2, by + 1)
    }
}

/// A picture over the whole body with a caption on top (a flash image,
/// Enter on an image).
enum PictureWidget {
    static func render(_ image: RGBImage, caption: String, trueColor: Bool, into g: inout Grid, _ area: Rect) {
        g.fill(x: area.x, y: area.y, w: area.width, h: area.height, style: Style())
        g.put(caption, x: max(0, (area.width - DisplayWidth.of(caption)) / 2), y: area.y, style: Theme.prompt, maxWidth: area.width)
        let cellsHigh = (image.height + 1) / 2
        HalfBlock.draw(pixels: image.pixels, width: image.width, height: image.height, into: &g,
                       x: max(0, (area.width - image.width) / 2), y: area.y + 1 + max(0, (area.height - 1 - cellsHigh) / 2),
                       trueColor: trueColor)
    }
}

/// Whatever overlay the mode shows.
enum OverlayWidget {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions, into g: inout Grid, _ area: Rect) {
        switch s.mode {
        case .help:
            HelpWidget.render(s.keyMap, L, into: &g, area)
        case .messageSearch(let search):
            let (q, hits, i) = (search.query, search.hits, search.index)
            var lines: [(String, Style)] = [(L.string("ui.search.messages") + q + "▏", Theme.prompt)]
            if !q.isEmpty && hits.isEmpty { lines.append((L.string("ui.search.none"), Theme.dim)) }
            for (n, h) in hits.prefix(max(1, area.height - 5)).enumerated() {
                let who = h.isMine ? s.myName : (s.chat?.conversation.nickname ?? "")
                let text = TerminalSanitizer.oneLine("\(TimeLabel.text(h.sendTime, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds)) \(who): \(h.text)")
                lines.append((text, n == i ? Theme.selected : Style()))
            }
            DialogWidget.render(title: L.string("ui.search.title"), lines: lines, into: &g, area)
        case .newChat(let dialog):
            let (q, users, i) = (dialog.query, dialog.found, dialog.index)
            var lines: [(String, Style)] = [(L.string("ui.newChat") + q + "▏", Theme.prompt)]
            if let users {
                for (n, u) in users.enumerated() {
                    lines.append((TerminalSanitizer.oneLine("\(u.username)  uid \(u.uid)"), n == i ? Theme.selected : Style()))
                }
                let q = TerminalSanitizer.oneLine(q.trimmingCharacters(in: .whitespaces))
                lines.append((L.string("ui.newGroup.create", ["name": q]), i == users.count ? Theme.selected : Theme.prompt))
                lines.append((L.string("ui.newGroup.join", ["unique": q]), i == users.count + 1 ? Theme.selected : Theme.prompt))
                lines.append((L.string("people.addRow", ["query": q]), i == users.count + 2 ? Theme.selected : Theme.prompt))
                lines.append((L.string("ui.newChat.enterRoom", ["unique": q]), i == users.count + 3 ? Theme.selected : Theme.prompt))
                lines.append((L.string("ui.newChat.directory", ["query": q]), i == users.count + 4 ? Theme.selected : Theme.prompt))
                lines.append((L.string("ui.newChat.newRoom", ["name": q]), i == users.count + 5 ? Theme.selected : Theme.prompt))
                if users.indices.contains(dialog.person) {
                    let name = TerminalSanitizer.oneLine(users[dialog.person].username)
                    lines.append((L.string("ui.newChat.secret", ["name": name]), i == users.count + 6 ? Theme.selected : Theme.prompt))
                }
            } else {
                lines.append((L.string("ui.newChat.hint"), Theme.dim))
            }
            DialogWidget.render(title: L.string("ui.newChat.title"), lines: lines, into: &g, area)
        case .newGroup(let form):
            DialogWidget.render(title: L.string("ui.newGroup"), lines: newGroupLines(form, L, rows: area.height - 4),
                                into: &g, area)
        case .record(let record, let i):
            // Every message of the record: who, when, what (one line each, sanitised).
            var lines: [(String, Style)] = []
            for (n, item) in record.items.enumerated() {
                let m = item.message(currentUID: s.myImUid)
                let said = m.map { $0.isRecalled ? "" : ($0.text ?? MessageKinds.summary(of: $0, localizer: L)) } ?? ""
                let time = item.sendTime.map { TimeLabel.text($0, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds) } ?? ""
                lines.append((TerminalSanitizer.oneLine("\(item.senderName ?? item.sendID ?? "")  \(time)"), n == i ? Theme.selected : Theme.dim))
                lines.append(("  " + TerminalSanitizer.oneLine(said), Style()))
            }
            let first = max(0, min(i * 2, lines.count - max(1, area.height - 6)))
            DialogWidget.render(title: TerminalSanitizer.oneLine(record.title), lines: Array(lines[first...]), into: &g, area)
        case .forward(let picker):
            let (messages, merged, query, chosen, index) = (picker.messages, picker.merged, picker.query, picker.chosen, picker.index)
            let prompt = merged ? "ui.forward.toMerged" : "ui.forward.to"
            var lines: [(String, Style)] = [(L.string(prompt, ["n": String(messages.count)]) + query + "▏", Theme.prompt)]
            let rows = ListState.filter(s.list.conversations, by: query)
            if rows.isEmpty { lines.append((L.string("ui.search.none"), Theme.dim)) }
            for (n, c) in rows.prefix(max(1, area.height - 6)).enumerated() {
                let mark = chosen.contains(c.id) ? "[x] " : "[ ] "
                lines.append((TerminalSanitizer.oneLine(mark + c.nickname), n == index ? Theme.selected : Style()))
            }
            lines.append((L.string("ui.forward.hint"), Theme.dim))
            DialogWidget.render(title: L.string("ui.forward"), lines: lines, into: &g, area)
        case .actions(let pick):
            let (items, i) = (pick.items, pick.index)
            let keyWidth = items.map { DisplayWidth.of($0.key) }.max() ?? 0
            let lines = items.enumerated().map { n, item in
                ("  " + item.key + String(repeating: " ", count: keyWidth - DisplayWidth.of(item.key)) + "  " + item.title,
                 n == i ? Theme.selected : Style())
            }
            DialogWidget.render(title: L.string("ui.menu"), lines: lines, into: &g, area)
        case .open(let pick):
            let lines = pick.items.enumerated().map { n, item in
                (item.line(L), n == pick.index ? Theme.selected : Theme.link)
            }
            DialogWidget.render(title: L.string("ui.open.title"), lines: lines, into: &g, area)
        case .favorites(let pick):
            let (items, i) = (pick.items, pick.index)
            // Newest first: where it came from, when it was kept, what it said (on one line, sanitised).
            var lines: [(String, Style)] = []
            if items.isEmpty { lines.append((L.string("ui.favorites.empty"), Theme.dim)) }
            for (n, f) in items.enumerated() {
                let m = IMMessageMapper.map(f.message, currentUID: s.myImUid)
                let said = MessageKinds.summary(of: m, localizer: L)
                let line = "\(f.conversationName)  \(TimeLabel.text(f.createdAt, L, now: s.now))  \(said)"
                lines.append((TerminalSanitizer.oneLine(line), n == i ? Theme.selected : Style()))
            }
            DialogWidget.render(title: L.string("ui.favorites"), lines: lines, into: &g, area)
        case .emoji(let grid):
            var lines: [(String, Style)] = []
            let all = EmojiCatalog.all
            for row in stride(from: 0, to: all.count, by: EmojiGrid.columns) {
                // Each emoji in a cell three columns wide; the chosen one stands out.
                let cells = all[row..<min(all.count, row + EmojiGrid.columns)].enumerated().map { i, e in
                    row + i == grid.index ? "[" + e.emoji + "]" : " " + e.emoji + " "
                }
                lines.append((cells.joined(), Style()))
            }
            let name = grid.current.map { ":" + $0.names.joined(separator: ": :") + ":" } ?? ""
            let room = max(1, area.height - 8)
            let first = max(0, min(grid.index / EmojiGrid.columns - room / 2, lines.count - room))
            let shown = Array(lines.dropFirst(first).prefix(room)) + [("", Style()), (name, Theme.prompt),
                                                                      (L.string("ui.emoji.gridHint"), Theme.dim)]
            DialogWidget.render(title: L.string("ui.emoji.title"), lines: shown, into: &g, area)
        case .favorite(let page):
            guard let f = page.favorite else { return }
            let m = IMMessageMapper.map(f.message, currentUID: s.myImUid)
            var lines: [(String, Style)] = [
                (L.string("ui.favorite.from", ["name": TerminalSanitizer.oneLine(f.conversationName)]), Theme.title),
                (L.string("ui.favorite.kept", ["time": TimeLabel.text(f.createdAt, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds)]),
                 Theme.dim),
                (L.string("ui.favorite.sent", ["time": TimeLabel.text(f.message.sendTime, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds)]),
                 Theme.dim),
                ("", Style()),
            ]
            // The whole message: its text wrapped, or what its kind says of it.
            let body = m.text ?? MessageKinds.summary(of: m, localizer: L)
            let width = max(10, min(area.width - 8, 60))
            let text = TextWrap.wrap(TerminalSanitizer.sanitize(body, keepNewlines: true), width: width).map { ($0, Style()) }
            lines += Array(text.dropFirst(min(page.top, max(0, text.count - 1))).prefix(max(1, area.height - 10)))
            lines += [("", Style()), (L.string("ui.favorite.hint"), Theme.dim)]
            DialogWidget.render(title: L.string("ui.favorite.title"), lines: lines, into: &g, area)
        case .signals(let view):
            DialogWidget.render(title: L.string("ui.signals.title"),
                                lines: SignalsWidget.lines(view, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds, rows: area.height - 4), into: &g, area)
        case .readers(let page):
            var lines: [(String, Style)] = [(TerminalSanitizer.oneLine(page.text), Theme.dim), ("", Style())]
            if let read = page.read, let unread = page.unread {
                lines.append((L.string("ui.readers.read", ["n": String(read.count)]), Theme.title))
                lines += read.map { ("  " + TerminalSanitizer.oneLine($0.username), Style()) }
                lines.append((L.string("ui.readers.unread", ["n": String(unread.count)]), Theme.title))
                lines += unread.map { ("  " + TerminalSanitizer.oneLine($0.username), Style()) }
            } else {
                lines.append((L.string("ui.loading"), Theme.dim))
            }
            let shown = Array(lines.prefix(2)) + Array(lines.dropFirst(2).dropFirst(page.top))
            DialogWidget.render(title: L.string("ui.readers"), lines: shown, into: &g, area)
        case .roomDirectory(let d):
            DialogWidget.render(title: L.string("ui.rooms.directory"), lines: RoomWidgets.directoryLines(d, mine: s.rooms, L, rows: area.height - 4),
                                into: &g, area)
        case .newRoom(let form):
            DialogWidget.render(title: L.string("ui.newRoom"), lines: RoomWidgets.newRoomLines(form, L), into: &g, area)
        case .roomPage(let page):
            guard let room = s.chat.flatMap({ s.room($0.id) }) else { return }
            DialogWidget.render(title: L.string("ui.room.page"),
                                lines: RoomWidgets.pageLines(room, page, me: s.myImUid, L, rows: area.height - 4), into: &g, area)
        case .settings(let member):
            guard let chat = s.chat else { return }
            let c = chat.conversation
            if c.isGroup {
                let lines = GroupSettingsWidget.lines(chat, selected: member, L, rows: area.height - 4)
                let origin = DialogWidget.render(title: L.string("ui.settings"), lines: AvatarWidget.beside(lines), into: &g, area)
                AvatarWidget.draw(chat.group?.avatar ?? "", s, options, into: &g, at: origin, L)
                return
            }
            DialogWidget.render(title: L.string("ui.settings"), lines: [
                (L.string("ui.settings.peer", ["name": TerminalSanitizer.oneLine(c.nickname), "uid": String(c.targetUid)]), Style()),
                ("", Style()), ("c  " + L.string("ui.settings.clear"), Theme.error),
            ], into: &g, area)
        case .flash(_, let since, let image):
            let left = max(0, 10 - Int(s.now.timeIntervalSince(since)))
            PictureWidget.render(image, caption: L.string("ui.flashShown", ["s": String(left)]), trueColor: options.trueColor,
                                 into: &g, area)
        case .picture(let m, let index, let image):
            let count = MessagePictures.of(m).count
            let caption = TerminalSanitizer.oneLine(count > 1
                ? L.string("ui.picture.multi", ["i": String(index + 1), "n": String(count)])
                : L.string("ui.picture"))
            PictureWidget.render(image, caption: caption, trueColor: options.trueColor, into: &g, area)
        case .contacts, .addFriend, .me, .peer:
            PeopleWidget.render(s, L, options, into: &g, area)
        case .normal, .confirm, .listSearch, .recording:
            break
        }
    }

    /// The new-group form: name, unique name, members chosen so far, then
    /// the member search and what it found.
    static func newGroupLines(_ f: AppState.NewGroupForm, _ L: Localizer, rows: Int) -> [(String, Style)] {
        let typingUnique = f.field == .unique
        var lines: [(String, Style)] = [
            (L.string("ui.newGroup.name", ["name": TerminalSanitizer.oneLine(f.name)]), Style()),
            (L.string("ui.newGroup.unique") + f.unique + (typingUnique ? "▏" : ""), typingUnique ? Theme.prompt : Style()),
        ]
        let names = f.members.map { TerminalSanitizer.oneLine($0.username) }.joined(separator: "、")
        lines.append((f.members.isEmpty ? L.string("ui.newGroup.onlyMe") : L.string("ui.newGroup.members", ["names": names]), Style()))
        guard !typingUnique else {
            lines.append((L.string("ui.newGroup.uniqueHint"), Theme.dim))
            return lines
        }
        lines.append((L.string("ui.newGroup.search") + TerminalSanitizer.oneLine(f.query) + "▏", Theme.prompt))
        if let found = f.found {
            if found.isEmpty { lines.append((L.string("ui.newGroup.notFound"), Theme.dim)) }
            // A window that keeps the selected one in sight.
            let room = max(1, rows - lines.count - 1)
            let first = found.count <= room ? 0 : min(max(0, f.index - room / 2), found.count - room)
            for (n, u) in found.enumerated().dropFirst(first).prefix(room) {
                let chosen = f.members.contains { $0.uid == u.uid } ? "✓ " : "  "
                let account = u.account.map { "  @" + $0 } ?? ""
                lines.append((chosen + TerminalSanitizer.oneLine("\(u.username)\(account)"), n == f.index ? Theme.selected : Style()))
            }
        }
        lines.append((L.string("ui.newGroup.searchHint"), Theme.dim))
        return lines
    }
}

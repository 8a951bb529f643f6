import ChatCore
import ChatMedia
import TerminalUI

/// The conversation list pane: a title with the unread total, then the
/// rooms I am in, then the conversations, two rows each (name, time;
/// preview or draft, unread badge).
enum ConversationListWidget {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions = RenderOptions(), into g: inout Grid, _ area: Rect) {
        let x = area.x, y = area.y, w = area.width, h = area.height
        var title = L.string("ui.title")
        if s.list.totalUnread > 0 { title += " (\(UnreadBadge.text(s.list.totalUnread)))" }
        if case .listSearch(let q) = s.mode { title = L.string("ui.search.list") + q + "▏" }
        g.put(title, x: x + 1, y: y, style: s.focus == .list ? Theme.title : Theme.dim, maxWidth: w - 2)
        g.put(String(repeating: "─", count: w), x: x, y: y + 1, style: Theme.border)
        let convs = s.visibleConversations
        let top = y + 2
        if s.list.isLoading && convs.isEmpty {
            for i in 0..<min((h - 2) / 2, 4) {
                g.put(String(repeating: "░", count: max(1, w - 4)), x: x + 1, y: top + i * 2, style: Theme.dim)
            }
            return
        }
        var searching: String?
        if case .listSearch(let q) = s.mode { searching = q }
        let hits = searching == nil ? [] : s.listHits
        if convs.isEmpty && hits.isEmpty {
            // A filter that matches nothing says so; only a list that is
            // really empty explains where conversations come from.
            var filtering = false
            if case .listSearch = s.mode { filtering = !s.list.conversations.isEmpty }
            let lines = filtering ? [L.string("ui.search.none")]
                : [L.string("ui.empty.title")] + TextWrap.wrap(L.string("ui.empty.hint"), width: max(1, w - 2))
            for (i, line) in lines.enumerated() {
                g.put(line, x: x + max(0, (w - DisplayWidth.of(line)) / 2), y: top + h / 3 + i,
                      style: i == 0 ? Theme.title : Theme.dim)
            }
            return
        }
        // Rooms, then conversations (each under a heading when there are
        // rooms), then the messages found in any of them.
        for (item, line) in placed(s, L, area) {
            guard let idx = item.row else {
                g.put(item.heading, x: x + 1, y: line, style: Theme.dim, maxWidth: w - 2)
                continue
            }
            let isSel = idx == s.listIndex
            let base = isSel && s.focus == .list ? Theme.selected : (isSel ? Style(underline: true) : Style())
            let r = Rect(x: x, y: line, width: w, height: 2)
            if idx < convs.count {
                if let room = s.room(convs[idx].id) {
                    renderRoomRow(room, base: base, now: s, L, into: &g, r)
                } else {
                    renderRow(convs[idx], base: base, now: s, L, options, into: &g, r)
                }
            } else {
                renderHit(hits[idx - convs.count], query: searching ?? "", base: base, now: s, L, into: &g, r)
            }
        }
    }

    /// The items on screen and the row each starts on (a click finds its
    /// conversation with the same arithmetic the drawing uses).
    static func placed(_ s: AppState, _ L: Localizer, _ area: Rect) -> [(item: ListItems, y: Int)] {
        let hits: [AppState.GlobalHit]
        if case .listSearch = s.mode { hits = s.listHits } else { hits = [] }
        let items = ListItems.of(s.visibleConversations, hits: hits.count, L)
        let selected = items.firstIndex { $0.row == s.listIndex } ?? 0
        var line = area.y + 2
        var out: [(item: ListItems, y: Int)] = []
        for item in items[ListItems.first(items, showing: selected, height: area.height - 2)...] {
            guard line + item.height <= area.y + area.height else { break }
            out.append((item, line))
            line += item.height
        }
        return out
    }

    /// The conversation (or search hit) drawn at row `y`, if any.
    static func row(at y: Int, _ s: AppState, _ L: Localizer, _ area: Rect) -> Int? {
        placed(s, L, area).first { y >= $0.y && y < $0.y + $0.item.height }?.item.row
    }

    /// A room I am in: `# name（N人在）`, the newest line below; bold only
    /// while something was said that I have not seen (rooms have no unread
    /// count).
    static func renderRoomRow(_ room: RoomEntry, base: Style, now s: AppState, _ L: Localizer, into g: inout Grid, _ r: Rect) {
        let x = r.x, ry = r.y, w = r.width
        let c = room.conversation
        g.fill(x: x, y: ry, w: w, h: 2, style: base)
        let time = c.lastMessageTime > 0 ? TimeLabel.text(c.lastMessageTime, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds) : ""
        let timeW = DisplayWidth.of(time)
        var nameStyle = base
        nameStyle.bold = room.unseen
        var cx = x + 1
        cx += g.put("# ", x: cx, y: ry, style: Theme.merge(base, Theme.dim))
        let after = ConversationMarks.count(c, L)
        let nameW = max(1, w - timeW - (cx - x) - 4 - DisplayWidth.of(after))
        cx += g.put(TextWrap.truncate(TerminalSanitizer.oneLine(c.nickname), width: nameW), x: cx, y: ry, style: nameStyle, maxWidth: nameW)
        g.put(after, x: cx, y: ry, style: Theme.merge(base, Theme.dim), maxWidth: max(0, x + w - timeW - 2 - cx))
        if !time.isEmpty { g.put(time, x: x + w - timeW - 1, y: ry, style: Theme.merge(base, Theme.dim)) }
        let line = c.lastMessagePreview.isEmpty ? room.info.topic : c.lastMessagePreview
        var lineStyle = Theme.merge(base, room.unseen ? Style() : Theme.dim)
        lineStyle.bold = room.unseen
        g.put(TextWrap.truncate(TerminalSanitizer.oneLine(line), width: max(1, w - 2)), x: x + 1, y: ry + 1, style: lineStyle,
              maxWidth: max(1, w - 2))
    }

    /// A message found by `/`: its conversation and time, then the text
    /// around the match, the match highlighted. All of it came from others:
    /// sanitised to one line.
    static func renderHit(_ h: AppState.GlobalHit, query: String, base: Style, now s: AppState, _ L: Localizer,
                          into g: inout Grid, _ r: Rect) {
        let x = r.x, ry = r.y, w = r.width
        g.fill(x: x, y: ry, w: w, h: 2, style: base)
        let time = TimeLabel.text(h.sendTime, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds)
        let timeW = DisplayWidth.of(time)
        var nameStyle = base
        nameStyle.bold = true
        let name = "🔍 " + TerminalSanitizer.oneLine(h.conversationName)
        g.put(TextWrap.truncate(name, width: max(1, w - timeW - 3)), x: x + 1, y: ry, style: nameStyle, maxWidth: max(1, w - timeW - 3))
        g.put(time, x: x + w - timeW - 1, y: ry, style: Theme.merge(base, Theme.dim))
        let text = TerminalSanitizer.oneLine(h.text)
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        let width = max(1, w - 2)
        guard !q.isEmpty, let match = text.range(of: q, options: .caseInsensitive) else {
            g.put(TextWrap.truncate(text, width: width), x: x + 1, y: ry + 1, style: Theme.merge(base, Theme.dim), maxWidth: width)
            return
        }
        // Enough of what comes before the match to read it, and the match in view.
        var before = String(text[..<match.lowerBound])
        if DisplayWidth.of(before) > width / 3 {
            while DisplayWidth.of(before) > width / 3 - 1, !before.isEmpty { before.removeFirst() }
            before = "…" + before
        }
        var cx = x + 1
        cx += g.put(before, x: cx, y: ry + 1, style: Theme.merge(base, Theme.dim), maxWidth: max(0, x + 1 + width - cx))
        cx += g.put(String(text[match]), x: cx, y: ry + 1, style: Theme.merge(base, Theme.match), maxWidth: max(0, x + 1 + width - cx))
        let rest = max(0, x + 1 + width - cx)
        if rest > 0 {
            g.put(TextWrap.truncate(String(text[match.upperBound...]), width: rest), x: cx, y: ry + 1,
                  style: Theme.merge(base, Theme.dim), maxWidth: rest)
        }
    }

    static func renderRow(_ c: Conversation, base: Style, now s: AppState, _ L: Localizer, _ options: RenderOptions = RenderOptions(),
                          into g: inout Grid, _ r: Rect) {
        g.fill(x: r.x, y: r.y, w: r.width, h: 2, style: base)
        // Seed 000 §五: the picture at the left of the row (a wide screen),
        // else the name's first character in a cell of its own colour.
        let face = ListFace.of(c, s)
        switch face {
        case .picture(let image, let key):
            AvatarWidget.place(image, key, columns: ListFace.pictureColumns, rows: 2, options, into: &g, at: (r.x + 1, r.y))
        case .initial(let text, let style):
            g.put(text, x: r.x + 1, y: r.y, style: style)
        }
        let inset = face.width + 1
        let x = r.x + inset, ry = r.y, w = r.width - inset
        let time = TimeLabel.text(c.lastMessageTime, L, now: s.now, utcOffsetSeconds: s.utcOffsetSeconds)
        let timeW = DisplayWidth.of(time)
        var cx = x + 1
        if c.isPinned { cx += g.put("📌", x: cx, y: ry, style: base) }
        var nameStyle = base
        nameStyle.bold = true
        // A muted conversation is dimmed (seed 003), a group I left too.
        if c.isMuted || (c.isGroup && !c.isMember) { nameStyle = Theme.merge(nameStyle, Theme.dim) }
        // The name keeps what follows it (member count, marks) in view: the
        // name is cut first, ending in "…".
        let after = ConversationMarks.text(c, L)
        let afterW = DisplayWidth.of(after)
        let nameW = max(1, w - timeW - (cx - x) - 4 - afterW)
        cx += g.put(TextWrap.truncate(TerminalSanitizer.sanitize(c.nickname), width: nameW), x: cx, y: ry, style: nameStyle, maxWidth: nameW)
        cx += g.put(after, x: cx, y: ry, style: Theme.merge(base, Theme.dim), maxWidth: max(0, x + w - timeW - 2 - cx))
        if c.isOnline && !c.isGroup { g.put(" ●", x: cx, y: ry, style: Theme.merge(base, Theme.online)) }
        g.put(time, x: x + w - timeW - 1, y: ry, style: Theme.merge(base, Theme.dim))
        // A muted conversation's count is grey: it does not call for attention.
        let badge = c.unreadCount > 0 ? " \(UnreadBadge.text(c.unreadCount)) " : ""
        let badgeW = DisplayWidth.of(badge)
        let previewW = max(1, w - badgeW - 3)
        var px = x + 1
        if c.hasUnreadMention {
            px += g.put(L.string("ui.mentioned") + " ", x: px, y: ry + 1, style: Theme.merge(base, Theme.mention), maxWidth: previewW)
        }
        let restW = max(1, previewW - (px - x - 1))
        let typers = s.live.typers(in: c.id, now: s.now)
        if let typing = TypingWords.text(typers, isGroup: c.isMultiParty, names: s.chat?.id == c.id ? s.chat?.senderNames ?? [:] : [:], L) {
            // In place of the preview while it lasts (PROTOCOL.md v4).
            g.put(TextWrap.truncate(typing, width: restW), x: px, y: ry + 1, style: Theme.merge(base, Theme.prompt), maxWidth: restW)
        } else if let draft = c.draftText, !draft.isEmpty {
            let text = L.string("ui.draft", ["text": TerminalSanitizer.oneLine(draft)])
            g.put(TextWrap.truncate(text, width: restW), x: px, y: ry + 1, style: Theme.merge(base, Theme.draft), maxWidth: restW)
        } else {
            g.put(TextWrap.truncate(TerminalSanitizer.oneLine(c.lastMessagePreview), width: restW), x: px, y: ry + 1,
                  style: Theme.merge(base, Theme.dim), maxWidth: restW)
        }
        if !badge.isEmpty { g.put(badge, x: x + w - badgeW - 1, y: ry + 1, style: c.isMuted ? Theme.mutedBadge : Theme.badge) }
    }
}

/// The list pane's lines: headings (one line) and rows (two lines: a room,
/// a conversation, a message found), with the index of each row.
struct ListItems {
    var heading = ""
    /// The row's index among the rooms, conversations and hits; nil for a heading.
    var row: Int?
    var height: Int { row == nil ? 1 : 2 }

    /// With rooms on the list, they and the conversations each get a heading.
    static func of(_ convs: [Conversation], hits: Int, _ L: Localizer) -> [ListItems] {
        var items: [ListItems] = []
        let rooms = convs.prefix { $0.isRoom }.count
        if rooms > 0 { items.append(ListItems(heading: L.string("ui.rooms.heading", ["n": String(rooms)]))) }
        for i in 0..<convs.count {
            if i == rooms && rooms > 0 { items.append(ListItems(heading: L.string("ui.conversations.heading"))) }
            items.append(ListItems(row: i))
        }
        for i in 0..<hits { items.append(ListItems(row: convs.count + i)) }
        return items
    }

    /// The first item drawn: as far up as still shows `selected` in
    /// `height` lines (the selection at the bottom when scrolled down).
    static func first(_ items: [ListItems], showing selected: Int, height: Int) -> Int {
        guard selected < items.count else { return 0 }
        var first = selected, used = items[selected].height
        while first > 0, used + items[first - 1].height <= height {
            first -= 1
            used += items[first].height
        }
        return first
    }
}

/// What stands at the left of a conversation's row: its picture when the
/// screen is wide enough and the picture is decoded, else the first
/// character of its name on a colour of its own (stable per conversation).
enum ListFace: Equatable {
    case picture(RGBImage, key: String)
    case initial(String, Style)

    /// Pictures need this many columns of screen.
    static let minimumWidth = 100
    static let pictureColumns = 4

    var width: Int {
        switch self {
        case .picture: ListFace.pictureColumns
        case .initial: 2
        }
    }

    static func of(_ c: Conversation, _ s: AppState) -> ListFace {
        if s.size.width >= minimumWidth, !c.avatar.isEmpty, case .ready(let image)? = s.thumbnails[c.avatar] {
            return .picture(image, key: c.avatar)
        }
        let first = TerminalSanitizer.oneLine(c.nickname).first.map { String($0).uppercased() } ?? "?"
        let text = DisplayWidth.of(first) >= 2 ? first : first + " "
        var style = Theme.sender(c.id)
        style.bg = style.fg
        style.fg = .index(15)
        return .initial(DisplayWidth.of(text) == 2 ? text : "? ", style)
    }
}

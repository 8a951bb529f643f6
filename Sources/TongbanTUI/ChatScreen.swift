import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Drawing: the screen is a pure function of the app's state.
extension ChatApp {
    static let minWidth = 40
    static let minHeight = 10

    enum Theme {
        static let title = Style(bold: true)
        static let dim = Style(fg: .index(8))
        static let selected = Style(reverse: true)
        static let mine = Style(fg: .index(2))
        static let theirs = Style()
        static let draft = Style(fg: .index(1))
        static let badge = Style(fg: .index(15), bg: .index(1), bold: true)
        static let online = Style(fg: .index(2))
        static let error = Style(fg: .index(1), bold: true)
        static let prompt = Style(fg: .index(3), bold: true)
        static let banner = Style(fg: .index(0), bg: .index(3), bold: true)
        static let border = Style(fg: .index(8))
        static let status = Style(reverse: true)
    }

    public func frame(width: Int, height: Int) -> Grid {
        lastFrameWidth = width
        lastFrameHeight = height
        var g = Grid(width: max(1, width), height: max(1, height))
        guard width >= Self.minWidth, height >= Self.minHeight else {
            let note = L.string("ui.tooSmall")
            let lines = TextWrap.wrap(note, width: max(1, width - 2))
            for (i, line) in lines.enumerated() {
                let y = height / 2 - lines.count / 2 + i
                g.put(line, x: max(0, (width - DisplayWidth.of(line)) / 2), y: max(0, min(height - 1, y)), style: Theme.prompt)
            }
            return g
        }
        let bodyHeight = height - 1
        let wide = width >= 80
        if wide {
            let listWidth = max(24, width * 3 / 10)
            drawList(&g, x: 0, y: 0, w: listWidth, h: bodyHeight)
            for y in 0..<bodyHeight { g.put("│", x: listWidth, y: y, style: Theme.border) }
            drawChat(&g, x: listWidth + 1, y: 0, w: width - listWidth - 1, h: bodyHeight)
        } else if narrowShowsMessages && chat != nil {
            drawChat(&g, x: 0, y: 0, w: width, h: bodyHeight)
        } else {
            drawList(&g, x: 0, y: 0, w: width, h: bodyHeight)
        }
        drawStatus(&g, y: height - 1, w: width)
        drawOverlay(&g, width: width, height: bodyHeight)
        if monochrome { Self.stripColours(&g) }
        return g
    }

    /// `NO_COLOR`: attributes only (bold, reverse, underline) and no colours.
    static func stripColours(_ g: inout Grid) {
        for y in 0..<g.height {
            for x in 0..<g.width {
                var cell = g[x, y]
                guard !cell.isContinuation, cell.style.fg != .default || cell.style.bg != .default else { continue }
                cell.style.fg = .default
                cell.style.bg = .default
                g[x, y] = cell
            }
        }
    }

    // MARK: - List pane

    func drawList(_ g: inout Grid, x: Int, y: Int, w: Int, h: Int) {
        var title = L.string("ui.title")
        if list.totalUnread > 0 { title += " (\(list.totalUnread > 99 ? "99+" : String(list.totalUnread)))" }
        if case .listSearch(let q) = mode { title = L.string("ui.search.list") + q + "▏" }
        g.put(title, x: x + 1, y: y, style: focus == .list ? Theme.title : Theme.dim, maxWidth: w - 2)
        g.put(String(repeating: "─", count: w), x: x, y: y + 1, style: Theme.border)
        let convs = visibleConversations
        let top = y + 2
        let rows = (h - 2) / 2
        if list.isLoading && convs.isEmpty {
            for i in 0..<min(rows, 4) {
                g.put(String(repeating: "░", count: max(1, w - 4)), x: x + 1, y: top + i * 2, style: Theme.dim)
            }
            return
        }
        if convs.isEmpty {
            // A filter that matches nothing says so; only a list that is
            // really empty explains where conversations come from.
            var filtering = false
            if case .listSearch = mode { filtering = !list.conversations.isEmpty }
            let lines = filtering ? [L.string("ui.search.none")]
                : [L.string("ui.empty.title")] + TextWrap.wrap(L.string("ui.empty.hint"), width: max(1, w - 2))
            for (i, line) in lines.enumerated() {
                g.put(line, x: x + max(0, (w - DisplayWidth.of(line)) / 2), y: top + h / 3 + i,
                      style: i == 0 ? Theme.title : Theme.dim)
            }
            return
        }
        let first = max(0, min(listIndex - rows + 1, convs.count - rows))
        for (row, idx) in (first..<min(convs.count, first + rows)).enumerated() {
            let c = convs[idx]
            let ry = top + row * 2
            let isSel = idx == listIndex
            let base = isSel && focus == .list ? Theme.selected : (isSel ? Style(underline: true) : Style())
            g.fill(x: x, y: ry, w: w, h: 2, style: base)
            let time = Self.timeLabel(c.lastMessageTime, L)
            let timeW = DisplayWidth.of(time)
            var cx = x + 1
            if c.isPinned { cx += g.put("📌", x: cx, y: ry, style: base) }
            var nameStyle = base
            nameStyle.bold = true
            // Names and previews too long for the pane end in "…".
            let nameW = max(1, w - timeW - (cx - x) - 4)
            cx += g.put(TextWrap.truncate(TerminalSanitizer.sanitize(c.nickname), width: nameW), x: cx, y: ry, style: nameStyle, maxWidth: nameW)
            if c.isOnline { g.put(" ●", x: cx, y: ry, style: merge(base, Theme.online)) }
            g.put(time, x: x + w - timeW - 1, y: ry, style: merge(base, Theme.dim))
            let badge = c.unreadCount > 0 ? " \(c.unreadCount > 99 ? "99+" : String(c.unreadCount)) " : ""
            let badgeW = DisplayWidth.of(badge)
            let previewW = max(1, w - badgeW - 3)
            if let draft = c.draftText, !draft.isEmpty {
                let text = L.string("ui.draft", ["text": Self.oneLine(draft)])
                g.put(TextWrap.truncate(text, width: previewW), x: x + 1, y: ry + 1, style: merge(base, Theme.draft), maxWidth: previewW)
            } else {
                g.put(TextWrap.truncate(Self.oneLine(c.lastMessagePreview), width: previewW), x: x + 1, y: ry + 1,
                      style: merge(base, Theme.dim), maxWidth: previewW)
            }
            if !badge.isEmpty { g.put(badge, x: x + w - badgeW - 1, y: ry + 1, style: Theme.badge) }
        }
    }

    func merge(_ base: Style, _ over: Style) -> Style {
        var s = base
        if over.fg != .default { s.fg = over.fg }
        if over.bg != .default { s.bg = over.bg }
        s.bold = s.bold || over.bold
        return s
    }

    static func oneLine(_ s: String) -> String {
        TerminalSanitizer.sanitize(s.replacingOccurrences(of: "\n", with: " "))
    }

    /// `HH:mm` today, `昨天` yesterday, else `M/d` (seed §五), in the
    /// user's time zone (`utcOffsetSeconds` fixes one, for tests).
    nonisolated public static func timeLabel(_ ms: Int, _ L: Localizer, now: Date = Date(), utcOffsetSeconds: Int? = nil) -> String {
        guard ms > 0, let t = LocalTime.of(milliseconds: ms, utcOffsetSeconds: utcOffsetSeconds) else { return "" }
        // The C library's local time, not Calendar.current: this runs for
        // every row of the list on every frame, and Calendar.current loads
        // ICU's locale data (see LocalTime).
        let nowMs = Int((now.timeIntervalSince1970 * 1000).rounded(.down))
        if let today = LocalTime.of(milliseconds: nowMs, utcOffsetSeconds: utcOffsetSeconds) {
            if t.dayNumber == today.dayNumber { return t.clock }
            if t.dayNumber == today.dayNumber - 1 { return L.string("time.yesterday") }
        }
        return "\(t.month)/\(t.day)"
    }

    // MARK: - Chat pane

    struct Line {
        var text: String
        var style: Style
        var align: Align
        var messageIndex: Int?
        /// A row of a thumbnail: the picture and which cell row of it.
        var picture: RGBImage?
        var pictureRow = 0
        /// The width of the whole bubble this line belongs to: a right-aligned
        /// bubble keeps one left edge (its box and wrapped lines line up)
        /// instead of pushing each line to the right on its own.
        var blockWidth: Int?
        enum Align { case left, right, center }
    }

    func drawChat(_ g: inout Grid, x: Int, y: Int, w: Int, h: Int) {
        guard let chat else {
            let hint = L.string(list.conversations.isEmpty ? "ui.empty.title" : "ui.noChat")
            g.put(hint, x: x + max(0, (w - DisplayWidth.of(hint)) / 2), y: y + h / 2, style: Theme.dim)
            return
        }
        // Header.
        var hx = x + 1
        hx += g.put(TerminalSanitizer.sanitize(chat.conversation.nickname), x: hx, y: y, style: Theme.title, maxWidth: w - 12)
        if chat.conversation.isOnline { g.put(" ● " + L.string("ui.online"), x: hx, y: y, style: Theme.online) }
        g.put(String(repeating: "─", count: w), x: x, y: y + 1, style: Theme.border)

        // Input bar: 1 to 5 lines, grows with the text.
        let inputWidth = max(1, w - 3)
        var inputLines = wrapInput(input.text, width: inputWidth)
        let cursorLines = wrapInput(input.beforeCursor, width: inputWidth)
        let cursorRow = cursorLines.count - 1
        let cursorCol = DisplayWidth.of(cursorLines.last ?? "")
        let visibleInput = min(5, max(1, inputLines.count))
        let firstInput = max(0, min(cursorRow - visibleInput + 1, inputLines.count - visibleInput))
        inputLines = Array(inputLines[firstInput..<min(inputLines.count, firstInput + visibleInput)])
        let inputTop = y + h - visibleInput
        g.put(String(repeating: "─", count: w), x: x, y: inputTop - 1, style: Theme.border)
        for (i, line) in inputLines.enumerated() {
            g.put(i == 0 && firstInput == 0 ? "> " : "  ", x: x, y: inputTop + i, style: focus == .input ? Theme.prompt : Theme.dim)
            g.put(line, x: x + 2, y: inputTop + i, style: Style(), maxWidth: inputWidth)
        }
        if focus == .input {
            let cy = inputTop + cursorRow - firstInput
            let cx = min(x + 2 + cursorCol, x + w - 1)
            var cell = g[cx, cy]
            cell.style.reverse = true
            if cell.text.isEmpty || cell.text == " " { g.put(" ", x: cx, y: cy, style: Theme.selected) } else {
                g.put(cell.text, x: cx, y: cy, style: cell.style)
            }
        }

        // Messages, newest at the bottom. Laid out from the newest back, and
        // only as far as the screen needs: what the scroll position shows,
        // a page more (so PageUp never mistakes the end of the laid-out part
        // for the top of the history) and the selected message. Wrapping
        // every loaded message made each frame of a chat with 1,000 loaded
        // cost 30-50 ms.
        let areaTop = y + 2
        let areaHeight = max(1, inputTop - 1 - areaTop)
        let bubbleWidth = max(10, w * 7 / 10)
        let selected = self.selected
        let wanted = scroll + areaHeight + max(areaHeight, 20)
        var blocks: [[Line]] = []   // newest first
        var laidOut = 0
        var bubbleIndex = 0         // index into `bubbles` (newest first)
        var exhausted = true
        for m in chat.messages {
            if laidOut >= wanted && bubbleIndex > (selected ?? -1) { exhausted = false; break }
            if m.type == .time {
                if case .timeMarker(let t) = m.content {
                    blocks.append([Line(text: "— \(t) —", style: Theme.dim, align: .center)])
                    laidOut += 1
                }
                continue
            }
            let isSel = bubbleIndex == selected && focus == .messages
            var block = bubbleLines(m, width: bubbleWidth)
            for i in block.indices {
                block[i].messageIndex = bubbleIndex
                if isSel { block[i].style.reverse = true }
            }
            block.append(Line(text: "", style: Style(), align: .left))
            laidOut += block.count
            blocks.append(block)
            bubbleIndex += 1
        }
        var lines: [Line] = []
        lines.reserveCapacity(laidOut + 2)
        if exhausted && chat.hasMoreHistory { lines.append(Line(text: L.string("ui.loadMore"), style: Theme.dim, align: .center)) }
        for block in blocks.reversed() { lines += block }
        if chat.isLoading && chat.messages.isEmpty { lines.append(Line(text: L.string("ui.loading"), style: Theme.dim, align: .center)) }
        // Keep the selected message on screen. With the history laid out
        // only in part, this is at least a page beyond the scroll position.
        maxScroll = max(0, lines.count - areaHeight)
        if let s = selected, let last = lines.lastIndex(where: { $0.messageIndex == s }),
           let firstLine = lines.firstIndex(where: { $0.messageIndex == s }) {
            let bottom = lines.count - scroll
            if last >= bottom { scroll = max(0, lines.count - last - 1) }
            if firstLine < bottom - areaHeight { scroll = min(maxScroll, lines.count - firstLine - areaHeight) }
        }
        scroll = min(scroll, maxScroll)
        let end = lines.count - scroll
        let start = max(0, end - areaHeight)
        // Chat panes fill from the bottom: the newest message sits on the input bar.
        let offset = areaHeight - (end - start)
        for (index, line) in lines[start..<end].enumerated() {
            let row = index + offset
            if let picture = line.picture {
                let px = line.align == .right ? x + max(1, w - (line.blockWidth ?? picture.width) - 1) : x + 1
                HalfBlock.drawRow(pixels: picture.pixels, width: picture.width, height: picture.height, row: line.pictureRow,
                                  into: &g, x: px, y: areaTop + row, trueColor: trueColor)
                continue
            }
            let lw = DisplayWidth.of(line.text)
            let lx: Int
            switch line.align {
            case .left: lx = x + 1
            case .right: lx = x + max(1, w - max(lw, line.blockWidth ?? 0) - 1)
            case .center: lx = x + max(0, (w - lw) / 2)
            }
            g.put(line.text, x: lx, y: areaTop + row, style: line.style, maxWidth: w - 1)
        }
        if chat.newMessageBannerCount > 0 {
            let banner = " " + L.string("ui.newMessages", ["n": String(chat.newMessageBannerCount)]) + " "
            g.put(banner, x: x + max(0, (w - DisplayWidth.of(banner)) / 2), y: areaTop + areaHeight - 1, style: Theme.banner)
        }
    }

    func wrapInput(_ text: String, width: Int) -> [String] {
        let lines = TextWrap.wrap(TerminalSanitizer.sanitize(text, keepNewlines: true), width: width)
        if text.hasSuffix("\n") || lines.isEmpty { return lines + [""] }
        return lines
    }

    /// One message as the lines of its bubble.
    func bubbleLines(_ m: ChatMessage, width: Int) -> [Line] {
        let align: Line.Align = m.isMe ? .right : .left
        let base = m.isMe ? Theme.mine : Theme.theirs
        func wrap(_ s: String, _ style: Style) -> [Line] {
            TextWrap.wrap(TerminalSanitizer.sanitize(s, keepNewlines: true), width: width).map { Line(text: $0, style: style, align: align) }
        }
        if m.isRecalled {
            return wrap(L.string(m.isMe ? "ui.revoked.mine" : "ui.revoked"), Theme.dim)
        }
        var out: [Line]
        switch m.content {
        case .text(let t):
            out = wrap(t, base)
        case .image(let p):
            var s = p.w.flatMap { w in p.h.map { h in L.string("ui.image", ["w": String(Int(w)), "h": String(Int(h))]) } }
                ?? L.string("ui.imageNoSize")
            let expired = m.isURLExpired && session.media.localURL(for: p.objectKey) == nil
            if expired { s += " " + L.string("ui.imageExpired") }
            out = wrap(s, base)
            if let thumb = thumbnail(for: p.objectKey) {
                for r in 0..<((thumb.height + 1) / 2) { out.append(Line(text: "", style: base, align: align, picture: thumb, pictureRow: r)) }
            } else if thumbnails[p.objectKey] == nil, !expired, let w = p.w, let h = p.h, w.isFinite, h.isFinite {
                // Still downloading or decoding: a dim box of the thumbnail's
                // size holds its place, so the pane does not jump when it arrives.
                let size = Self.thumbnailCells(width: Int(min(max(w, 0), 1e6)), height: Int(min(max(h, 0), 1e6)))
                for _ in 0..<size.rows {
                    out.append(Line(text: String(repeating: "░", count: size.columns), style: Theme.dim, align: align))
                }
            }
        case .flashImage:
            let key: String
            if m.isMe { key = m.isDestroyed ? "ui.flash.viewedBySender" : "ui.flash.sender" } else {
                key = m.isDestroyed ? "ui.flash.viewed" : "ui.flash.receiver"
            }
            out = wrap("⚡ " + L.string(key), m.isDestroyed ? Theme.dim : base)
        case .multiImage(let p):
            out = wrap(L.string("ui.multi", ["n": String(p.multiObjectKeys.count)]), base)
        case .audio(let p):
            let playingNow = playingId == m.id
            out = wrap((playingNow ? "■ " : "") + L.string("ui.voice", ["s": String(p.durationSec)]) + (playingNow ? " " + L.string("ui.playing") : ""), base)
        case .file(let p):
            out = wrap("📎 " + SafeFileName.base(p.name) + "  " + FileSizeText.format(p.size), base)
        case .signalQuote(let p):
            let inner = max(4, width - 4)
            var box = [Line(text: "┌ " + L.string("ui.signalQuote"), style: Theme.dim, align: align)]
            box += TextWrap.wrap(TerminalSanitizer.sanitize(p.signalContent, keepNewlines: true), width: inner)
                .map { Line(text: "│ " + $0, style: Theme.dim, align: align) }
            box.append(Line(text: "├" + String(repeating: "─", count: min(inner, 12)), style: Theme.dim, align: align))
            box += TextWrap.wrap(TerminalSanitizer.sanitize(p.replyContent, keepNewlines: true), width: inner)
                .map { Line(text: "│ " + $0, style: base, align: align) }
            out = box
        case .unknown(let p):
            out = wrap(p.msgDesc ?? L.string("ui.unknown"), Theme.dim)
        case .flashViewed, .revokeNotice, .timeMarker:
            out = []
        }
        if m.status == .sending {
            if m.uploadProgress > 0 && m.uploadProgress < 1 || (m.objectKey?.hasPrefix("@upload") ?? false) {
                out.append(Line(text: L.string("ui.uploading", ["p": String(Int(m.uploadProgress * 100))]), style: Theme.dim, align: align))
            } else if !out.isEmpty {
                out[out.count - 1].text += " …"
            }
        } else if m.status == .failed {
            out.append(Line(text: "✗ " + L.string("ui.failed"), style: Theme.error, align: align))
        }
        if align == .right {
            let block = out.map { $0.picture?.width ?? DisplayWidth.of($0.text) }.max() ?? 0
            for i in out.indices { out[i].blockWidth = block }
        }
        return out
    }

    // MARK: - Status line and overlays

    func drawStatus(_ g: inout Grid, y: Int, w: Int) {
        g.fill(x: 0, y: y, w: w, h: 1, style: Theme.status)
        let conn: String
        switch connection {
        case .online: conn = "● " + L.string("ui.status.online")
        case .connecting: conn = "◌ " + L.string("ui.status.connecting")
        case .offline(let why): conn = "○ " + L.string("ui.status.offline", ["reason": Self.oneLine(why)])
        }
        var x = 1
        if storeFull {
            x += g.put("⚠ " + L.string("ui.status.diskFull"), x: x, y: y, style: merge(Theme.status, Theme.error), maxWidth: w / 2)
        } else {
            x += g.put(conn, x: x, y: y, style: Theme.status, maxWidth: w / 3)
        }
        x += 2
        if case .recording = mode {
            let seconds = recordingStarted.map { max(0, Int(Date().timeIntervalSince($0))) } ?? 0
            let clock = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
            g.put("● " + clock + "  " + L.string("ui.recording"), x: x, y: y, style: merge(Theme.status, Theme.error), maxWidth: w - x - 1)
        } else if case .confirm(let prompt, _) = mode {
            g.put(Self.oneLine(prompt), x: x, y: y, style: merge(Theme.status, Theme.prompt), maxWidth: w - x - 1)
        } else if let status {
            g.put(TerminalSanitizer.sanitize(status), x: x, y: y, style: merge(Theme.status, Theme.error), maxWidth: w - x - 1)
        } else {
            let hints: String
            switch focus {
            case .list: hints = L.string("ui.hints.list")
            case .messages: hints = L.string("ui.hints.messages")
            case .input: hints = L.string("ui.hints.input")
            }
            g.put(TextWrap.truncate(hints, width: w - x - 1), x: x, y: y, style: Theme.status, maxWidth: w - x - 1)
        }
    }

    /// A framed box in the middle of the screen; returns where its text starts.
    @discardableResult
    func drawBox(_ g: inout Grid, title: String, lines: [(String, Style)], width: Int, height: Int) -> (x: Int, y: Int) {
        let bw = min(width - 4, max(30, (lines.map { DisplayWidth.of($0.0) }.max() ?? 0) + 4, DisplayWidth.of(title) + 6))
        let bh = min(height - 2, lines.count + 2)
        let bx = (width - bw) / 2, by = max(0, (height - bh) / 2)
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

    /// One help section from its localised text: a title line, then
    /// "keys<TAB>what they do" lines, the keys padded to one column.
    static func helpSection(_ text: String) -> [(String, Style)] {
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let title = rows.first else { return [] }
        let pairs = rows.dropFirst().map { row -> (String, String) in
            let parts = row.split(separator: "\t", maxSplits: 1).map(String.init)
            return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
        }
        let keyWidth = pairs.map { DisplayWidth.of($0.0) }.max() ?? 0
        return [(title, Theme.title)] + pairs.map { key, what in
            ("  " + key + String(repeating: " ", count: keyWidth - DisplayWidth.of(key)) + "  " + what, Style())
        }
    }

    /// The help's sections (list, messages, input, everywhere), with each
    /// key rebound in `keys.json` written in front of the default key it
    /// stands for (both work).
    func helpTexts() -> [String] {
        var texts = ["ui.help.list", "ui.help.messages", "ui.help.input", "ui.help.everywhere"].map { L.string($0) }
        for binding in keyMap.rebound {
            guard let (scope, original) = KeyMap.defaults[binding.action] else { continue }
            let section = scope == .list ? 0 : scope == .messages ? 1 : 3
            texts[section] = Self.addKey(KeyMap.name(of: binding.key), before: KeyMap.name(of: original), in: texts[section])
        }
        return texts
    }

    /// `text` with `key` put in front of the first row whose keys include
    /// `original` (rows are "keys<TAB>what they do", after a title line).
    static func addKey(_ key: String, before original: String, in text: String) -> String {
        var rows = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for i in rows.indices.dropFirst() {
            guard let tab = rows[i].firstIndex(of: "\t") else { continue }
            let keys = rows[i][..<tab].split(separator: " ").map(String.init)
            guard keys.contains(original) else { continue }
            if !keys.contains(key) { rows[i] = key + " " + rows[i] }
            break
        }
        return rows.joined(separator: "\n")
    }

    /// The key reference: list and global keys beside message and input
    /// keys when the screen is wide enough, else one column.
    func drawHelp(_ g: inout Grid, width: Int, height: Int) {
        let s = helpTexts().map { Self.helpSection($0) }
        let blank = [("", Style())]
        let left = s[0] + blank + s[3], right = s[1] + blank + s[2]
        let leftWidth = left.map { DisplayWidth.of($0.0) }.max() ?? 0
        let rightWidth = right.map { DisplayWidth.of($0.0) }.max() ?? 0
        let gap = 4
        guard leftWidth + gap + rightWidth + 4 <= width - 4 else {
            drawBox(&g, title: L.string("ui.help"), lines: s[0] + blank + s[1] + blank + s[2] + blank + s[3], width: width, height: height)
            return
        }
        let rows = max(left.count, right.count)
        let sizing = [(String(repeating: " ", count: leftWidth + gap + rightWidth), Style())]
            + Array(repeating: ("", Style()), count: rows - 1)
        let origin = drawBox(&g, title: L.string("ui.help"), lines: sizing, width: width, height: height)
        let visible = min(rows, max(0, height - 2 - 2))
        for i in 0..<visible {
            if i < left.count { g.put(left[i].0, x: origin.x, y: origin.y + i, style: left[i].1, maxWidth: leftWidth) }
            if i < right.count { g.put(right[i].0, x: origin.x + leftWidth + gap, y: origin.y + i, style: right[i].1, maxWidth: rightWidth) }
        }
    }

    func drawOverlay(_ g: inout Grid, width: Int, height: Int) {
        switch mode {
        case .help:
            drawHelp(&g, width: width, height: height)
        case .messageSearch(let q, let hits, let i):
            var lines: [(String, Style)] = [(L.string("ui.search.messages") + q + "▏", Theme.prompt)]
            if !q.isEmpty && hits.isEmpty { lines.append((L.string("ui.search.none"), Theme.dim)) }
            for (n, h) in hits.prefix(max(1, height - 5)).enumerated() {
                let who = h.sendID == session.credentials.imUid ? session.credentials.username : (chat?.conversation.nickname ?? "")
                let text = Self.oneLine("\(Self.timeLabel(h.sendTime, L)) \(who): \(h.searchText)")
                lines.append((text, n == i ? Theme.selected : Style()))
            }
            drawBox(&g, title: "/", lines: lines, width: width, height: height)
        case .newChat(let q, let users, let i):
            var lines: [(String, Style)] = [(L.string("ui.newChat") + q + "▏", Theme.prompt)]
            for (n, u) in users.enumerated() { lines.append((Self.oneLine("\(u.username)  uid \(u.uid)"), n == i ? Theme.selected : Style())) }
            drawBox(&g, title: "n", lines: lines, width: width, height: height)
        case .signals(let items, let i):
            var lines: [(String, Style)] = []
            if items.isEmpty { lines.append((L.string("ui.signals.empty"), Theme.dim)) }
            for (n, it) in items.enumerated() {
                let mark = it.isImOpened ? "  " : "● "
                lines.append((Self.oneLine("\(mark)\(it.from.username): \(it.replyContent)  ← \(it.signalContent)"),
                              n == i ? Theme.selected : Style()))
            }
            drawBox(&g, title: L.string("ui.signals"), lines: lines, width: width, height: height)
        case .settings:
            guard let c = chat?.conversation else { return }
            drawBox(&g, title: L.string("ui.settings"), lines: [
                (L.string("ui.settings.peer", ["name": Self.oneLine(c.nickname), "uid": String(c.targetUid)]), Style()),
                ("", Style()), ("c  " + L.string("ui.settings.clear"), Theme.error),
            ], width: width, height: height)
        case .flash(_, let since, let image):
            let left = max(0, 10 - Int(Date().timeIntervalSince(since)))
            g.fill(x: 0, y: 0, w: width, h: height, style: Style())
            let caption = L.string("ui.flashShown", ["s": String(left)])
            g.put(caption, x: max(0, (width - DisplayWidth.of(caption)) / 2), y: 0, style: Theme.prompt)
            let cellsHigh = (image.height + 1) / 2
            HalfBlock.draw(pixels: image.pixels, width: image.width, height: image.height, into: &g,
                           x: max(0, (width - image.width) / 2), y: 1 + max(0, (height - 1 - cellsHigh) / 2),
                           trueColor: trueColor)
        case .picture(let m, let index, let image):
            g.fill(x: 0, y: 0, w: width, h: height, style: Style())
            let count = ChatApp.pictures(of: m).count
            let caption = Self.oneLine(count > 1
                ? L.string("ui.picture.multi", ["i": String(index + 1), "n": String(count)])
                : L.string("ui.picture"))
            g.put(caption, x: max(0, (width - DisplayWidth.of(caption)) / 2), y: 0, style: Theme.prompt, maxWidth: width)
            let cellsHigh = (image.height + 1) / 2
            HalfBlock.draw(pixels: image.pixels, width: image.width, height: image.height, into: &g,
                           x: max(0, (width - image.width) / 2), y: 1 + max(0, (height - 1 - cellsHigh) / 2),
                           trueColor: trueColor)
        case .normal, .confirm, .listSearch, .recording:
            break
        }
    }
}

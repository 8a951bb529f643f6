import ChatCore
import TerminalUI

/// The message pane, newest at the bottom. Its scroll state is explicit:
/// `layout` answers where the view is (the asked scroll clamped, with the
/// selected message kept in view) without changing anything.
enum MessageListWidget {
    struct Layout {
        var lines: [BubbleLine]
        /// Lines scrolled up from the bottom, as shown.
        var scroll: Int
        var maxScroll: Int
    }

    /// Laid out from the newest back, and only as far as the screen needs:
    /// what the scroll position shows, a page more (so PageUp never
    /// mistakes the end of the laid-out part for the top of the history)
    /// and the selected message.
    static func layout(_ s: AppState, in area: Rect, _ L: Localizer) -> Layout {
        guard let chat = s.chat else { return Layout(lines: [], scroll: 0, maxScroll: 0) }
        let areaHeight = max(1, area.height)
        let context = BubbleContext(L: L, width: max(10, area.width * 7 / 10), thumbnails: s.thumbnails,
                                    cachedKeys: chat.cachedKeys, playingId: s.playingId, now: s.now,
                                    isGroup: chat.conversation.isMultiParty, senderNames: chat.senderNames, me: chat.me,
                                    peerName: chat.conversation.nickname, marked: Set(s.marked ?? []),
                                    blockedSenders: s.people.blockedImUids, unfolded: s.unfolded,
                                    peerReadSeq: chat.conversation.peerReadSeq,
                                    readCounts: s.live.countsOf == chat.id ? s.live.readCounts : [:])
        let selected = s.selected
        let wanted = s.scroll + areaHeight + max(areaHeight, 20)
        var blocks: [[BubbleLine]] = []   // newest first
        var laidOut = 0
        var bubbleIndex = 0               // among bubbles, newest first
        var exhausted = true
        BubbleMemo.with(context) { bubble in
            for m in chat.messages {
                if laidOut >= wanted && bubbleIndex > (selected ?? -1) { exhausted = false; break }
                if m.type == .time {
                    if let t = m.content.timeMarker {
                        blocks.append([BubbleLine(text: "— \(t) —", style: Theme.dim, align: .center)])
                        laidOut += 1
                    }
                    continue
                }
                if m.content.groupNotice != nil || m.content.secretNotice != nil {
                    // A centred grey line, like a time marker: not a bubble, not selectable.
                    let said = m.content.groupNotice?.sentence(me: chat.me, L) ?? m.content.secretNotice?.sentence(L) ?? ""
                    let text = TerminalSanitizer.oneLine(said)
                    for line in TextWrap.wrap(text, width: max(1, area.width - 4)).reversed() {
                        blocks.append([BubbleLine(text: line, style: Theme.notice, align: .center)])
                        laidOut += 1
                    }
                    continue
                }
                let isSel = bubbleIndex == selected && s.focus == .messages
                var block = bubble(m)
                for i in block.indices {
                    block[i].messageIndex = bubbleIndex
                    if isSel { block[i].reverse() }
                }
                block.append(BubbleLine(text: "", style: Style(), align: .left))
                laidOut += block.count
                blocks.append(block)
                bubbleIndex += 1
            }
        }
        var lines: [BubbleLine] = []
        lines.reserveCapacity(laidOut + 2)
        if exhausted && chat.hasMoreHistory { lines.append(BubbleLine(text: L.string("ui.loadMore"), style: Theme.dim, align: .center)) }
        for block in blocks.reversed() { lines += block }
        if chat.isLoading && chat.messages.isEmpty { lines.append(BubbleLine(text: L.string("ui.loading"), style: Theme.dim, align: .center)) }
        let maxScroll = max(0, lines.count - areaHeight)
        var scroll = s.scroll
        // Keep the selected message on screen. With the history laid out
        // only in part, this is at least a page beyond the scroll position.
        if let sel = selected, let last = lines.lastIndex(where: { $0.messageIndex == sel }),
           let firstLine = lines.firstIndex(where: { $0.messageIndex == sel }) {
            let bottom = lines.count - scroll
            if last >= bottom { scroll = max(0, lines.count - last - 1) }
            if firstLine < bottom - areaHeight { scroll = min(maxScroll, lines.count - firstLine - areaHeight) }
        }
        return Layout(lines: lines, scroll: min(scroll, maxScroll), maxScroll: maxScroll)
    }

    /// The bubble (newest = 0) drawn at row `y` of the pane, if any: the
    /// same layout the drawing uses, so a click lands on what it shows.
    static func bubble(at y: Int, _ s: AppState, _ L: Localizer, _ area: Rect) -> Int? {
        let layout = layout(s, in: area, L), areaHeight = max(1, area.height)
        let end = layout.lines.count - layout.scroll, start = max(0, end - areaHeight)
        let i = start + (y - area.y) - (areaHeight - (end - start))
        return i >= start && i < end ? layout.lines[i].messageIndex : nil
    }

    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions, into g: inout Grid, _ area: Rect) {
        guard let chat = s.chat else { return }
        let layout = layout(s, in: area, L)
        let x = area.x, w = area.width, areaHeight = max(1, area.height)
        let lines = layout.lines
        let end = lines.count - layout.scroll
        let start = max(0, end - areaHeight)
        // Chat panes fill from the bottom: the newest message sits on the input bar.
        let offset = areaHeight - (end - start)
        for (index, line) in lines[start..<end].enumerated() {
            let row = area.y + index + offset
            if let picture = line.picture {
                let px = line.align == .right ? x + max(1, w - (line.blockWidth ?? picture.width) - 1) : x + 1
                HalfBlock.drawRow(pixels: picture.pixels, width: picture.width, height: picture.height, row: line.pictureRow,
                                  into: &g, x: px, y: row, trueColor: options.trueColor)
                // A thumbnail wholly on screen goes to a pixel-drawing terminal too (as avatars do).
                let rows = (picture.height + 1) / 2
                if line.pictureRow == 0, start + index + rows <= end {
                    g.images.append(GridImage(x: px, y: row, columns: picture.width, rows: rows, width: picture.width,
                                              height: picture.height, pixels: picture.pixels,
                                              id: AvatarWidget.imageId(picture.pixels)))
                }
                continue
            }
            let lw = DisplayWidth.of(line.text)
            let lx: Int
            switch line.align {
            case .left: lx = x + 1
            case .right: lx = x + max(1, w - max(lw, line.blockWidth ?? 0) - 1)
            case .center: lx = x + max(0, (w - lw) / 2)
            }
            if let pieces = line.pieces {
                var px = lx
                for piece in pieces {
                    let room = w - 1 - (px - x)
                    guard room > 0 else { break }
                    g.put(piece.text, x: px, y: row, style: piece.style, maxWidth: room)
                    let width = DisplayWidth.of(piece.text)
                    if let url = piece.url { g.links.append(GridLink(x: px, y: row, columns: min(width, room), url: url)) }
                    px += width
                }
                continue
            }
            g.put(line.text, x: lx, y: row, style: line.style, maxWidth: w - 1)
        }
        if chat.newMessageBannerCount > 0 {
            let banner = " " + L.string("ui.newMessages", ["n": String(chat.newMessageBannerCount)]) + " "
            g.put(banner, x: x + max(0, (w - DisplayWidth.of(banner)) / 2), y: area.y + areaHeight - 1, style: Theme.banner)
        }
    }
}

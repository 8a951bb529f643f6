import ChatCore
import ChatMedia
import Foundation
import TerminalUI

/// One line of the message pane.
struct BubbleLine: Sendable {
    enum Align { case left, right, center }

    var text: String
    var style: Style
    var align: Align
    /// Which bubble (newest = 0) the line belongs to.
    var messageIndex: Int?
    /// A row of a thumbnail: the picture and which cell row of it.
    var picture: RGBImage?
    var pictureRow = 0
    /// The width of the whole bubble this line belongs to: a right-aligned
    /// bubble keeps one left edge (its box and wrapped lines line up)
    /// instead of pushing each line to the right on its own.
    var blockWidth: Int?
    /// A line of several styles (reactions, mine highlighted): drawn piece
    /// by piece; `text` is their concatenation, which places the line.
    var pieces: [Piece]?
    struct Piece: Equatable, Sendable {
        var text: String
        var style: Style
        /// A link's address: the frame marks these cells as a hyperlink.
        var url: String?
    }

    /// The line as the selected message shows it.
    mutating func reverse() {
        style.reverse = true
        if let p = pieces {
            pieces = p.map { piece in
                var piece = piece
                piece.style.reverse = true
                return piece
            }
        }
    }
}

/// What a bubble may look at besides its message.
struct BubbleContext {
    let L: Localizer
    /// The bubble's text width.
    let width: Int
    let thumbnails: [String: AppState.Thumbnail]
    let cachedKeys: Set<String>
    let playingId: String?
    /// The time on screen (whether a picture's URL has expired).
    let now: Date
    /// Groups: each incoming bubble is headed by its sender's name.
    var isGroup = false
    var senderNames: [String: String] = [:]
    var me = ""
    /// A single chat's peer, as the header names them (a quote of them says so).
    var peerName = ""
    /// v3 multi-select: the messages marked.
    var marked: Set<String> = []
    /// v3: in a group, the senders I blocked (imUids): their messages fold
    /// to one grey line, unless opened (`unfolded`).
    var blockedSenders: Set<String> = []
    var unfolded: Set<String> = []
    /// v4 read receipts: the peer's read seq (one-to-one; nil when reads
    /// are not shared) and my group messages' counts.
    var peerReadSeq: Int?
    var readCounts: [Int: ReadCountsResponse.Count] = [:]

    /// Whether `m` shows as the folded line of a blocked sender.
    func isFolded(_ m: ChatMessage) -> Bool {
        isGroup && !m.isMe && blockedSenders.contains(m.senderId) && !unfolded.contains(m.id)
    }
}

/// Draws one message as the lines of its bubble; each kind's drawing lives
/// in its own file and is listed once in `drawers`.
enum Bubbles {
    typealias Drawer = @Sendable (ChatMessage, BubbleContext, Style) -> [BubbleLine]

    static let drawers: [ChatMessageType: Drawer] = [
        .text: text, .image: image, .flashImage: flashImage, .multiImage: multiImage,
        .voice: voice, .file: file, .signalQuote: signalQuote, .mention: mention, .quote: quote, .merged: merged,
        .card: card,
    ]

    static func lines(_ m: ChatMessage, _ c: BubbleContext) -> [BubbleLine] {
        let align: BubbleLine.Align = m.isMe ? .right : .left
        if m.isRecalled {
            return wrap(c.L.string(m.isMe ? "ui.revoked.mine" : "ui.revoked"), Theme.dim, m, c)
        }
        if c.isFolded(m) {
            let name = TerminalSanitizer.oneLine(c.senderNames[m.senderId] ?? m.senderId)
            return wrap(c.L.string("people.folded", ["name": name]), Theme.dim, m, c)
        }
        var out: [BubbleLine]
        if let draw = drawers[m.type] {
            out = draw(m, c, m.isMe ? Theme.mine : Theme.theirs)
        } else if let p = m.content.unknown {
            out = wrap(p.msgDesc ?? c.L.string("ui.unknown"), Theme.dim, m, c)
        } else if m.content.sealed != nil {
            // A secret message this device could not open: a retry is under way.
            out = wrap(c.L.string("secret.undecryptable"), Theme.error, m, c)
        } else {
            out = []
        }
        if m.status == .sending {
            if m.uploadProgress > 0 && m.uploadProgress < 1 || UploadPlaceholder.isPlaceholder(m.objectKey) {
                out.append(BubbleLine(text: c.L.string("ui.uploading", ["p": String(Int(m.uploadProgress * 100))]),
                                      style: Theme.dim, align: align))
            } else if !out.isEmpty {
                out[out.count - 1].text += " …"
            }
            if let why = m.errorReason {
                // Still queued: behind a failed message, or the server was not reached yet.
                let note = why == MessageStatus.heldReason
                    ? c.L.string("ui.held") : c.L.string("ui.queued", ["reason": MessageStatus.words(forReason: why, c.L)])
                out.append(BubbleLine(text: TextWrap.truncate(TerminalSanitizer.oneLine(note), width: c.width),
                                      style: Theme.dim, align: align))
            }
        } else if m.status == .failed {
            let words = m.errorReason == MessageStatus.blockedReason ? c.L.string("ui.failedBlocked")
                : m.errorReason == MessageStatus.quotaReason ? c.L.string("ui.failedQuota") : c.L.string("ui.failed")
            out.append(BubbleLine(text: "✗ " + words, style: Theme.error, align: align))
        }
        if m.editedAt != nil { mark(c.L.string("ui.edited"), &out, m, c) }
        if let read = ReadMark.text(m, peerReadSeq: c.peerReadSeq, isGroup: c.isGroup, counts: c.readCounts, c.L) {
            mark(read, &out, m, c)
        }
        if let row = reactionRow(m, c) { out.append(row) }
        if c.marked.contains(m.id) {
            out.insert(BubbleLine(text: c.L.string("ui.marked"), style: Theme.prompt, align: align), at: 0)
        }
        if c.isGroup && !m.isMe {
            let name = TerminalSanitizer.oneLine(c.senderNames[m.senderId] ?? m.senderId)
            out.insert(BubbleLine(text: TextWrap.truncate(name, width: c.width), style: Theme.sender(m.senderId), align: align), at: 0)
        }
        if align == .right {
            let block = out.map { $0.picture?.width ?? DisplayWidth.of($0.text) }.max() ?? 0
            for i in out.indices { out[i].blockWidth = block }
        }
        return out
    }

    /// A small mark (`（已编辑）`, `已读`) after the last line of text when it
    /// fits there, else on a line of its own.
    static func mark(_ mark: String, _ out: inout [BubbleLine], _ m: ChatMessage, _ c: BubbleContext) {
        if let last = out.indices.last, out[last].picture == nil, out[last].pieces == nil,
           DisplayWidth.of(out[last].text) + DisplayWidth.of(mark) + 1 <= c.width {
            out[last].text += " " + mark
        } else {
            out.append(BubbleLine(text: mark, style: Theme.dim, align: m.isMe ? .right : .left))
        }
    }

    /// `👍 2  ❤️ 1` under the bubble, mine highlighted; nil without reactions.
    /// Each emoji came over the network: sanitised like any text.
    static func reactionRow(_ m: ChatMessage, _ c: BubbleContext) -> BubbleLine? {
        guard !m.reactions.isEmpty else { return nil }
        var pieces: [BubbleLine.Piece] = []
        var width = 0
        for e in m.reactions.entries {
            let text = TerminalSanitizer.oneLine(e.emoji) + " " + String(e.users.count)
            let w = DisplayWidth.of(text) + (pieces.isEmpty ? 0 : 2)
            if width + w > c.width { break }
            if !pieces.isEmpty { pieces.append(.init(text: "  ", style: Theme.dim)) }
            pieces.append(.init(text: text, style: e.users.contains(c.me) ? Theme.reactionMine : Theme.dim))
            width += w
        }
        return BubbleLine(text: pieces.map(\.text).joined(), style: Theme.dim, align: m.isMe ? .right : .left, pieces: pieces)
    }

    /// Text wrapped to the bubble's width, sanitised, on the sender's side.
    static func wrap(_ s: String, _ style: Style, _ m: ChatMessage, _ c: BubbleContext) -> [BubbleLine] {
        let text = TerminalSanitizer.sanitize(s, keepNewlines: true)
        let lines = TextWrap.wrap(text, width: c.width).map { BubbleLine(text: $0, style: style, align: m.isMe ? .right : .left) }
        let links = Links.find(in: text)
        guard !links.isEmpty else { return lines }
        return linked(lines, in: text, links, style) ?? lines
    }

    /// `lines` with their links as pieces of their own (underlined, with the
    /// address). A wrapped line's characters come from `text` in order (a
    /// wrap only drops spaces and line breaks), so walking both tells which
    /// characters belong to which link, also when a link is wrapped.
    static func linked(_ lines: [BubbleLine], in text: String, _ links: [Links.Link], _ style: Style) -> [BubbleLine]? {
        var at = text.startIndex
        var out = lines
        for (n, line) in lines.enumerated() {
            var pieces: [BubbleLine.Piece] = []
            for ch in line.text {
                while at < text.endIndex, text[at] != ch { at = text.index(after: at) }
                guard at < text.endIndex else { return nil }
                let url = links.first { $0.range.contains(at) }?.url
                if let last = pieces.last, last.url == url {
                    pieces[pieces.count - 1].text.append(ch)
                } else {
                    pieces.append(BubbleLine.Piece(text: String(ch), style: url == nil ? style : Theme.merge(style, Theme.link), url: url))
                }
                at = text.index(after: at)
            }
            if pieces.contains(where: { $0.url != nil }) { out[n].pieces = pieces }
        }
        return out
    }
}

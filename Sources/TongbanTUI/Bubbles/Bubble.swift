import ChatCore
import ChatMedia
import Foundation
import TerminalUI

/// One line of the message pane.
struct BubbleLine {
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
}

/// Draws one message as the lines of its bubble; each kind's drawing lives
/// in its own file and is listed once in `drawers`.
enum Bubbles {
    typealias Drawer = @Sendable (ChatMessage, BubbleContext, Style) -> [BubbleLine]

    static let drawers: [ChatMessageType: Drawer] = [
        .text: text, .image: image, .flashImage: flashImage, .multiImage: multiImage,
        .voice: voice, .file: file, .signalQuote: signalQuote, .mention: mention,
    ]

    static func lines(_ m: ChatMessage, _ c: BubbleContext) -> [BubbleLine] {
        let align: BubbleLine.Align = m.isMe ? .right : .left
        if m.isRecalled {
            return wrap(c.L.string(m.isMe ? "ui.revoked.mine" : "ui.revoked"), Theme.dim, m, c)
        }
        var out: [BubbleLine]
        if let draw = drawers[m.type] {
            out = draw(m, c, m.isMe ? Theme.mine : Theme.theirs)
        } else if let p = m.content.unknown {
            out = wrap(p.msgDesc ?? c.L.string("ui.unknown"), Theme.dim, m, c)
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
                let note = why == MessageStatus.heldReason ? c.L.string("ui.held") : c.L.string("ui.queued", ["reason": why])
                out.append(BubbleLine(text: TextWrap.truncate(TerminalSanitizer.oneLine(note), width: c.width),
                                      style: Theme.dim, align: align))
            }
        } else if m.status == .failed {
            out.append(BubbleLine(text: "✗ " + c.L.string("ui.failed"), style: Theme.error, align: align))
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

    /// Text wrapped to the bubble's width, sanitised, on the sender's side.
    static func wrap(_ s: String, _ style: Style, _ m: ChatMessage, _ c: BubbleContext) -> [BubbleLine] {
        TextWrap.wrap(TerminalSanitizer.sanitize(s, keepNewlines: true), width: c.width)
            .map { BubbleLine(text: $0, style: style, align: m.isMe ? .right : .left) }
    }
}

import ChatCore
import ChatMedia
import TerminalUI

/// `[图片] 96×64` and its thumbnail in half blocks; while the thumbnail is
/// downloading or decoding, a dim box of its size holds its place.
extension Bubbles {
    /// The largest thumbnail in a bubble, in pixels (two per cell row).
    static let thumbnailSide = 16

    static func image(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.image else { return [] }
        let align: BubbleLine.Align = m.isMe ? .right : .left
        var s = p.w.flatMap { w in p.h.map { h in c.L.string("ui.image", ["w": String(Int(w)), "h": String(Int(h))]) } }
            ?? c.L.string("ui.imageNoSize")
        let expired = m.isURLExpired(now: c.now) && !c.cachedKeys.contains(p.objectKey)
        if expired { s += " " + c.L.string("ui.imageExpired") }
        var out = wrap(s, base, m, c)
        switch c.thumbnails[p.objectKey] {
        case .ready(let thumb):
            for r in 0..<((thumb.height + 1) / 2) {
                out.append(BubbleLine(text: "", style: base, align: align, picture: thumb, pictureRow: r))
            }
        case .undecodable:
            break
        case .pending, .retryLater, nil:
            guard !expired, let w = p.w, let h = p.h, w.isFinite, h.isFinite else { break }
            // The pane does not jump when the picture arrives.
            let size = thumbnailCells(width: Int(min(max(w, 0), 1e6)), height: Int(min(max(h, 0), 1e6)))
            for _ in 0..<size.rows {
                out.append(BubbleLine(text: String(repeating: "░", count: size.columns), style: Theme.dim, align: align))
            }
        }
        return out
    }

    /// The cells a w×h picture's thumbnail takes (shrunk to fit, never
    /// enlarged): a column per pixel, a row per two.
    static func thumbnailCells(width: Int, height: Int) -> (columns: Int, rows: Int) {
        guard width > 0, height > 0 else { return (0, 0) }
        let scale = min(1, Double(thumbnailSide) / Double(width), Double(thumbnailSide) / Double(height))
        let w = max(1, Int((Double(width) * scale).rounded())), h = max(1, Int((Double(height) * scale).rounded()))
        return (w, (h + 1) / 2)
    }

    /// How many of a multi-image message's pictures its bubble draws side by side.
    static let multiShown = 3

    /// `[3 张图片]`, then its first pictures side by side (those decoded),
    /// and `+N` for the ones not drawn.
    static func multiImage(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.multiImage else { return [] }
        let align: BubbleLine.Align = m.isMe ? .right : .left
        var out = wrap(c.L.string("ui.multi", ["n": String(p.multiObjectKeys.count)]), base, m, c)
        let thumbs: [RGBImage] = p.multiObjectKeys.prefix(multiShown).compactMap {
            if case .ready(let t)? = c.thumbnails[$0] { t } else { nil }
        }
        guard let strip = sideBySide(thumbs, gap: 1), strip.width <= c.width else { return out }
        for r in 0..<((strip.height + 1) / 2) {
            out.append(BubbleLine(text: "", style: base, align: align, picture: strip, pictureRow: r))
        }
        let more = p.multiObjectKeys.count - thumbs.count
        if more > 0 { out.append(BubbleLine(text: "+\(more)", style: Theme.dim, align: align)) }
        return out
    }

    /// Pictures in a row, top-aligned, `gap` pixels (cells) apart on the
    /// terminal's own background (black); nil for none.
    static func sideBySide(_ pictures: [RGBImage], gap: Int) -> RGBImage? {
        guard !pictures.isEmpty else { return nil }
        if pictures.count == 1 { return pictures[0] }
        let height = pictures.map(\.height).max() ?? 0
        let width = pictures.map(\.width).reduce(0, +) + gap * (pictures.count - 1)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var x0 = 0
        for p in pictures {
            for y in 0..<p.height {
                let from = y * p.width * 3, to = (y * width + x0) * 3
                pixels.replaceSubrange(to..<(to + p.width * 3), with: p.pixels[from..<(from + p.width * 3)])
            }
            x0 += p.width + gap
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}

import ChatCore
import TerminalUI

/// The client's styles, in one place.
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
    /// `[有人@我]`: red, as in seed 003.
    static let mention = Style(fg: .index(1), bold: true)
    /// What a search matched, in a result.
    static let match = Style(fg: .index(3), bold: true, underline: true)
    /// A reaction of mine under a bubble.
    static let reactionMine = Style(fg: .index(3), bold: true)
    static let mutedBadge = Style(fg: .index(15), bg: .index(8))
    /// A group's system notice: a centred grey line.
    static let notice = Style(fg: .index(8))

    /// A stable colour per sender in a group: the same person has the same
    /// colour on every screen and every run (FNV-1a of the imUid, not
    /// Swift's per-process seeded hash).
    static func sender(_ imUid: String) -> Style {
        let palette: [UInt8] = [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14]
        var h: UInt32 = 2_166_136_261
        for b in imUid.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return Style(fg: .index(palette[Int(h % UInt32(palette.count))]), bold: true)
    }

    /// `over`'s colours and boldness on top of `base`.
    static func merge(_ base: Style, _ over: Style) -> Style {
        var s = base
        if over.fg != .default { s.fg = over.fg }
        if over.bg != .default { s.bg = over.bg }
        s.bold = s.bold || over.bold
        s.underline = s.underline || over.underline
        return s
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
}

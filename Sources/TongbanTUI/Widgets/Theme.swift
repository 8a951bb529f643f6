import ChatCore
import TerminalUI

/// The client's styles, in one place. Widgets ask for a role
/// (`Theme.dim`); the frame being drawn decides what it looks like:
/// `Screen.render` binds the palette of the user's theme for the frame.
enum Theme {
    /// The palette of the frame being drawn (task-local, so two screens
    /// drawn at once, as tests do, never see each other's theme).
    @TaskLocal static var palette = ThemePalette.dark

    static var title: Style { palette[.title] }
    static var dim: Style { palette[.dim] }
    static var selected: Style { palette[.selected] }
    static var mine: Style { palette[.mine] }
    static var theirs: Style { palette[.theirs] }
    static var draft: Style { palette[.draft] }
    static var badge: Style { palette[.badge] }
    static var online: Style { palette[.online] }
    static var error: Style { palette[.error] }
    static var prompt: Style { palette[.prompt] }
    static var banner: Style { palette[.banner] }
    static var border: Style { palette[.border] }
    static var status: Style { palette[.status] }
    /// `[有人@我]`: red, as in seed 003.
    static var mention: Style { palette[.mention] }
    /// What a search matched, in a result.
    static var match: Style { palette[.match] }
    /// A reaction of mine under a bubble.
    static var reactionMine: Style { palette[.reactionMine] }
    static var mutedBadge: Style { palette[.mutedBadge] }
    /// A group's system notice: a centred grey line.
    static var notice: Style { palette[.notice] }
    /// A link in a message.
    static var link: Style { palette[.link] }

    /// A stable colour per sender in a group: the same person has the same
    /// colour on every screen and every run (FNV-1a of the imUid, not
    /// Swift's per-process seeded hash).
    static func sender(_ imUid: String) -> Style {
        let colours = palette.senderColours
        guard !colours.isEmpty else { return Style(bold: true) }
        var h: UInt32 = 2_166_136_261
        for b in imUid.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return Style(fg: .index(colours[Int(h % UInt32(colours.count))]), bold: true)
    }

    /// `over`'s colours and boldness on top of `base`.
    static func merge(_ base: Style, _ over: Style) -> Style {
        var s = base
        if over.fg != .default { s.fg = over.fg }
        if over.bg != .default { s.bg = over.bg }
        s.bold = s.bold || over.bold
        s.underline = s.underline || over.underline
        s.dim = s.dim || over.dim
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

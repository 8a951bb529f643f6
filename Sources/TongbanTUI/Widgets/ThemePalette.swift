import TerminalUI

/// What every role of `Theme` looks like: one of the three built-in themes,
/// with the user's per-role overrides from `config.json` on top.
struct ThemePalette: Equatable, Sendable {
    /// The roles `config.json`'s `"colors"` may override, by these names.
    enum Role: String, CaseIterable, Sendable {
        case title, dim, selected, mine, theirs, draft, badge, online, error, prompt, banner, border, status
        case mention, match, reactionMine, mutedBadge, notice, link
    }

    /// The built-in themes, by the names `config.json`'s `"theme"` takes.
    enum Name: String, CaseIterable, Sendable {
        case dark, light
        case highContrast = "high-contrast"
    }

    private var styles: [Role: Style]
    /// Colours a group's senders are drawn in (xterm palette indexes).
    var senderColours: [UInt8]

    subscript(role: Role) -> Style {
        get { styles[role] ?? Style() }
        set { styles[role] = newValue }
    }

    static func named(_ name: Name) -> ThemePalette {
        switch name {
        case .dark: return dark
        case .light: return light
        case .highContrast: return highContrast
        }
    }

    /// For dark backgrounds, the default: grey (8) for what matters less.
    static let dark = ThemePalette(styles: [
        .title: Style(bold: true),
        .dim: Style(fg: .index(8)),
        .selected: Style(reverse: true),
        .mine: Style(fg: .index(2)),
        .theirs: Style(),
        .draft: Style(fg: .index(1)),
        .badge: Style(fg: .index(15), bg: .index(1), bold: true),
        .online: Style(fg: .index(2)),
        .error: Style(fg: .index(1), bold: true),
        .prompt: Style(fg: .index(3), bold: true),
        .banner: Style(fg: .index(0), bg: .index(3), bold: true),
        .border: Style(fg: .index(8)),
        .status: Style(reverse: true),
        .mention: Style(fg: .index(1), bold: true),
        .match: Style(fg: .index(3), bold: true, underline: true),
        .reactionMine: Style(fg: .index(3), bold: true),
        .mutedBadge: Style(fg: .index(15), bg: .index(8)),
        .notice: Style(fg: .index(8)),
        .link: Style(fg: .index(6), underline: true),
    ], senderColours: [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14])

    /// For white and pale backgrounds: no grey, yellow or bright colour as
    /// text (they vanish on white, and grey 8 is white on 8-colour
    /// terminals); what matters less is faint default text instead.
    static let light = ThemePalette(styles: [
        .title: Style(bold: true),
        .dim: Style(dim: true),
        .selected: Style(reverse: true),
        .mine: Style(fg: .index(22)),
        .theirs: Style(),
        .draft: Style(fg: .index(1)),
        .badge: Style(fg: .index(15), bg: .index(1), bold: true),
        .online: Style(fg: .index(22)),
        .error: Style(fg: .index(1), bold: true),
        .prompt: Style(fg: .index(4), bold: true),
        .banner: Style(fg: .index(15), bg: .index(4), bold: true),
        .border: Style(dim: true),
        .status: Style(reverse: true),
        .mention: Style(fg: .index(1), bold: true),
        .match: Style(fg: .index(4), bold: true, underline: true),
        .reactionMine: Style(fg: .index(4), bold: true),
        .mutedBadge: Style(fg: .index(15), bg: .index(240)),
        .notice: Style(dim: true),
        .link: Style(fg: .index(4), underline: true),
    ], senderColours: [1, 2, 4, 5, 6, 22, 52, 53, 88, 90, 94, 130])

    /// The terminal's own colours at full strength and bold where the dark
    /// theme uses grey: nothing faint, for low vision or bright rooms.
    static let highContrast = ThemePalette(styles: [
        .title: Style(bold: true, underline: true),
        .dim: Style(),
        .selected: Style(bold: true, reverse: true),
        .mine: Style(fg: .index(10), bold: true),
        .theirs: Style(),
        .draft: Style(fg: .index(9), bold: true),
        .badge: Style(fg: .index(15), bg: .index(9), bold: true),
        .online: Style(fg: .index(10), bold: true),
        .error: Style(fg: .index(9), bold: true, reverse: true),
        .prompt: Style(fg: .index(11), bold: true),
        .banner: Style(fg: .index(0), bg: .index(11), bold: true),
        .border: Style(bold: true),
        .status: Style(bold: true, reverse: true),
        .mention: Style(fg: .index(9), bold: true, underline: true),
        .match: Style(fg: .index(11), bold: true, underline: true),
        .reactionMine: Style(fg: .index(11), bold: true),
        .mutedBadge: Style(bold: true, reverse: true),
        .notice: Style(bold: true),
        .link: Style(fg: .index(14), bold: true, underline: true),
    ], senderColours: [9, 10, 11, 12, 13, 14])
}

/// Maps `TermColor`s to the colour numbers a terminal with `colors` colours
/// understands. Pure; `Terminal` uses it to allocate colour pairs.
///
/// - 256 or more colours: indexes are used as they are.
/// - 16 colours: indexes 16–255 go to the nearest of the 16 xterm colours.
/// - 8 colours: as 16, then bright foregrounds 9–15 become 1–7 plus bold,
///   bright black (gray, 8) becomes white, bright backgrounds lose brightness.
/// - `.rgb` is first reduced to its nearest xterm-256 index.
/// - `.default` is -1 (the terminal's own colour) when the terminal has
///   default colours (`use_default_colors`), else white on black.
struct ColorMapping: Hashable, Sendable {
    let colors: Int
    let hasDefaultColors: Bool

    struct Resolved: Hashable, Sendable {
        var fg: Int16
        var bg: Int16
        /// Add bold to stand in for a bright foreground on 8-colour terminals.
        var bold: Bool
    }

    func resolve(fg: TermColor, bg: TermColor) -> Resolved {
        let f = map(fg, foreground: true)
        let b = map(bg, foreground: false)
        return Resolved(fg: f.number, bg: b.number, bold: f.bright)
    }

    private func map(_ color: TermColor, foreground: Bool) -> (number: Int16, bright: Bool) {
        guard let raw = color.paletteIndex, colors >= 8 else {
            if hasDefaultColors { return (-1, false) }
            return (foreground ? 7 : 0, false)
        }
        let n = Int(raw)
        if colors >= 256 { return (Int16(n), false) }
        let sixteen = n < 16 ? n : Self.nearestOf16(n)
        if colors >= 16 { return (Int16(sixteen), false) }
        switch sixteen {
        case 0..<8: return (Int16(sixteen), false)
        case 8: return (foreground ? 7 : 0, false)
        default: return (Int16(sixteen - 8), foreground)
        }
    }

    /// The xterm default palette, indexes 0–15.
    private static let palette16: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0),
        (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0),
        (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// RGB of an xterm-256 index 16–255.
    static func rgb(_ n: Int) -> (Int, Int, Int) {
        if n >= 232 {
            let level = 8 + 10 * (n - 232)
            return (level, level, level)
        }
        let levels = [0, 95, 135, 175, 215, 255]
        let i = n - 16
        return (levels[i / 36], levels[(i / 6) % 6], levels[i % 6])
    }

    /// The nearest of the 16 basic colours to xterm-256 index `n` (16–255).
    static func nearestOf16(_ n: Int) -> Int {
        let (r, g, b) = rgb(n)
        var best = 0
        var bestDistance = Int.max
        for (i, c) in palette16.enumerated() {
            let d = (r - c.0) * (r - c.0) + (g - c.1) * (g - c.1) + (b - c.2) * (b - c.2)
            if d < bestDistance {
                best = i
                bestDistance = d
            }
        }
        return best
    }
}

/// Pictures in any terminal: each cell shows two pixels with the upper half
/// block `▀`, foreground = the top pixel, background = the bottom pixel, in
/// the xterm 256-colour palette, or in 24-bit colour (`trueColor`) where the
/// terminal has it.
public enum HalfBlock {
    /// Whether the environment says the terminal shows 24-bit colour:
    /// `COLORTERM` is `truecolor` or `24bit` (the convention of xterm, kitty,
    /// iTerm2, GNOME Terminal, tmux with `RGB`), and `NO_COLOR` is not set.
    public static func trueColor(environment: [String: String]) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        let value = (environment["COLORTERM"] ?? "").lowercased()
        return value == "truecolor" || value == "24bit"
    }

    /// Draws RGB pixels (3 bytes each, row by row) of `width`×`height` at
    /// (x, y); uses `width` columns and `(height + 1) / 2` rows.
    public static func draw(pixels: [UInt8], width: Int, height: Int, into grid: inout Grid, x: Int, y: Int,
                            trueColor: Bool = false) {
        guard width > 0, height > 0, pixels.count >= width * height * 3 else { return }
        for row in 0..<((height + 1) / 2) {
            for col in 0..<width {
                let top = color(pixels, (row * 2 * width + col) * 3, trueColor)
                let bottom = row * 2 + 1 < height ? color(pixels, ((row * 2 + 1) * width + col) * 3, trueColor) : TermColor.default
                grid.put("▀", x: x + col, y: y + row, style: Style(fg: top, bg: bottom))
            }
        }
    }

    /// One cell row (`row` counts cell rows, two pixel rows each).
    public static func drawRow(pixels: [UInt8], width: Int, height: Int, row: Int, into grid: inout Grid, x: Int, y: Int,
                               trueColor: Bool = false) {
        guard width > 0, height > 0, row >= 0, row * 2 < height, pixels.count >= width * height * 3 else { return }
        for col in 0..<width {
            let top = color(pixels, (row * 2 * width + col) * 3, trueColor)
            let bottom = row * 2 + 1 < height ? color(pixels, ((row * 2 + 1) * width + col) * 3, trueColor) : TermColor.default
            grid.put("▀", x: x + col, y: y, style: Style(fg: top, bg: bottom))
        }
    }

    static func color(_ p: [UInt8], _ i: Int, _ trueColor: Bool) -> TermColor {
        trueColor ? .rgb(p[i], p[i + 1], p[i + 2]) : .index(xterm256(p[i], p[i + 1], p[i + 2]))
    }

    /// The nearest xterm-256 colour: the 6×6×6 cube or the 24-step grey ramp.
    public static func xterm256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let levels: [Int] = [0, 95, 135, 175, 215, 255]
        func nearestLevel(_ v: UInt8) -> Int {
            var best = 0
            for i in 1..<6 where abs(levels[i] - Int(v)) < abs(levels[best] - Int(v)) { best = i }
            return best
        }
        let (ri, gi, bi) = (nearestLevel(r), nearestLevel(g), nearestLevel(b))
        let cube = 16 + 36 * ri + 6 * gi + bi
        func dist(_ a: (Int, Int, Int)) -> Int {
            let dr = a.0 - Int(r), dg = a.1 - Int(g), db = a.2 - Int(b)
            return dr * dr + dg * dg + db * db
        }
        let cubeDist = dist((levels[ri], levels[gi], levels[bi]))
        let avg = (Int(r) + Int(g) + Int(b)) / 3
        let greyIndex = max(0, min(23, (avg - 8 + 5) / 10))
        let greyLevel = 8 + greyIndex * 10
        return dist((greyLevel, greyLevel, greyLevel)) < cubeDist ? UInt8(232 + greyIndex) : UInt8(cube)
    }
}

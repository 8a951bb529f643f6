import Foundation

/// How a terminal draws a picture: the kitty graphics protocol (kitty,
/// WezTerm, Ghostty answer its query), sixel (the terminal lists it in its
/// device attributes: xterm -ti vt340, foot, mlterm, WezTerm, tmux built
/// with sixel), or half blocks in cells, which every terminal shows.
public enum GraphicsProtocol: String, Sendable, Equatable, CaseIterable {
    case kitty, sixel, halfBlock = "halfblock"
}

/// A picture a frame places over some of its cells, for a terminal that
/// draws pixels: `pixels` is RGB, row by row. The cells under it hold the
/// half-block version, which is what shows where pixels are not drawn.
public struct GridImage: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var columns: Int
    public var rows: Int
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]
    /// Stable per picture, so the terminal replaces rather than stacks it.
    public var id: UInt32

    public init(x: Int, y: Int, columns: Int, rows: Int, width: Int, height: Int, pixels: [UInt8], id: UInt32) {
        self.x = x; self.y = y; self.columns = columns; self.rows = rows
        self.width = width; self.height = height; self.pixels = pixels; self.id = id
    }
}

/// The escape sequences of the two pixel protocols, and which one a
/// terminal has. Pure functions: the output is golden-tested as text.
public enum TerminalGraphics {
    /// Asked once at start: kitty's query (a 1×1 picture it only checks,
    /// answered `OK` by terminals that draw kitty images), a cell's size in
    /// pixels, and the primary device attributes (answered by every
    /// terminal; 4 among them: sixel). Inside tmux kitty is not asked for:
    /// tmux does not know where a passed-through picture sits among its
    /// panes, so there only sixel (which tmux draws itself) or half blocks are used.
    public static func query(insideTmux: Bool) -> String {
        (insideTmux ? "" : "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\") + "\u{1B}[16t\u{1B}[c"
    }

    /// Hears replies to `query` and says which protocol to use.
    public struct Detector: Sendable {
        public private(set) var kitty = false
        public private(set) var sixel = false
        /// A cell's size in pixels, as the terminal said (else a common one).
        public private(set) var cell = (width: 10, height: 20)
        /// Set by the environment (`TONGBAN_GRAPHICS`), which wins.
        public var forced: GraphicsProtocol?

        public init(environment: [String: String] = [:]) {
            forced = environment["TONGBAN_GRAPHICS"].flatMap { GraphicsProtocol(rawValue: $0.lowercased()) }
        }

        public mutating func hear(_ reply: TerminalReply) {
            switch reply {
            case .graphics(let body):
                if body.hasPrefix("Gi=31"), body.hasSuffix(";OK") { kitty = true }
            case .deviceAttributes(let attributes):
                if attributes.split(separator: ";").contains("4") { sixel = true }
            case .cellSize(let width, let height):
                cell = (width, height)
            case .background:
                break
            }
        }

        public var chosen: GraphicsProtocol { forced ?? (kitty ? .kitty : sixel ? .sixel : .halfBlock) }
    }

    /// The cursor at a cell (0-based), the picture, the cursor back.
    public static func placed(_ sequence: String, x: Int, y: Int) -> String {
        "\u{1B}7\u{1B}[\(y + 1);\(x + 1)H" + sequence + "\u{1B}8"
    }

    /// Kitty: the RGB pixels sent and shown at once over `columns`×`rows`
    /// cells (the terminal scales them), replacing picture `id`, without
    /// moving the cursor or answering; base64 in chunks of at most 4096.
    public static func kitty(_ image: GridImage) -> String {
        let payload = Data(image.pixels.prefix(image.width * image.height * 3)).base64EncodedString()
        let head = "a=T,f=24,s=\(image.width),v=\(image.height),c=\(image.columns),r=\(image.rows),i=\(image.id),C=1,q=2"
        var out = ""
        var start = payload.startIndex
        var first = true
        repeat {
            let end = payload.index(start, offsetBy: 4096, limitedBy: payload.endIndex) ?? payload.endIndex
            let more = end < payload.endIndex ? 1 : 0
            out += "\u{1B}_G" + (first ? head + "," : "") + "m=\(more);" + payload[start..<end] + "\u{1B}\\"
            first = false
            start = end
        } while start < payload.endIndex
        return out
    }

    /// Kitty: takes every picture of ours off the screen.
    public static func kittyDeleteAll() -> String { "\u{1B}_Ga=d,d=a,q=2\u{1B}\\" }

    /// Sixel: the pixels in the 6×6×6 colour cube (only the colours used are
    /// defined), six pixel rows per band, runs of four or more compressed.
    public static func sixel(_ image: GridImage) -> String {
        let w = image.width, h = image.height
        guard w > 0, h > 0, image.pixels.count >= w * h * 3 else { return "" }
        func level(_ v: UInt8) -> Int { (Int(v) * 5 + 127) / 255 }
        var index = [Int](repeating: 0, count: w * h)
        var used = Set<Int>()
        for i in 0..<(w * h) {
            let c = level(image.pixels[i * 3]) * 36 + level(image.pixels[i * 3 + 1]) * 6 + level(image.pixels[i * 3 + 2])
            index[i] = c
            used.insert(c)
        }
        var out = "\u{1B}Pq\"1;1;\(w);\(h)"
        for c in used.sorted() {
            let percent = { (l: Int) in l * 100 / 5 }
            out += "#\(c);2;\(percent(c / 36));\(percent(c / 6 % 6));\(percent(c % 6))"
        }
        var band = 0
        while band < h {
            let bandColors = Set((band..<min(h, band + 6)).flatMap { y in (0..<w).map { index[y * w + $0] } }).sorted()
            for (n, c) in bandColors.enumerated() {
                out += "#\(c)"
                var run: Character = "?", count = 0
                func flush() {
                    guard count > 0 else { return }
                    out += count >= 4 ? "!\(count)\(run)" : String(repeating: run, count: count)
                }
                for x in 0..<w {
                    var bits = 0
                    for dy in 0..<6 where band + dy < h && index[(band + dy) * w + x] == c { bits |= 1 << dy }
                    let ch = Character(Unicode.Scalar(UInt8(63 + bits)))
                    if ch == run { count += 1 } else { flush(); run = ch; count = 1 }
                }
                flush()
                if n < bandColors.count - 1 { out += "$" }
            }
            out += "-"
            band += 6
        }
        return out + "\u{1B}\\"
    }

    /// What a frame writes after its cells for `images`, in `graphics`:
    /// nothing for half blocks; for kitty, the old pictures off and these on
    /// (the terminal scales each to its cells); for sixel, these drawn again,
    /// each resampled to its cells' pixels (`cell`), which a sixel terminal
    /// shows one to one (tmux draws sixel itself: it goes as is).
    public static func frame(_ images: [GridImage], graphics: GraphicsProtocol, cell: (width: Int, height: Int) = (10, 20))
        -> String {
        switch graphics {
        case .halfBlock:
            return ""
        case .kitty:
            return kittyDeleteAll() + images.map { placed(kitty($0), x: $0.x, y: $0.y) }.joined()
        case .sixel:
            return images.map { placed(sixel(fitted($0, cell: cell)), x: $0.x, y: $0.y) }.joined()
        }
    }

    /// `image` resampled (nearest pixel) to its cells' size in pixels.
    static func fitted(_ image: GridImage, cell: (width: Int, height: Int)) -> GridImage {
        let w = min(1024, max(1, image.columns * cell.width)), h = min(1024, max(1, image.rows * cell.height))
        guard image.width > 0, image.height > 0, image.pixels.count >= image.width * image.height * 3,
              w != image.width || h != image.height else { return image }
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let sy = y * image.height / h
            for x in 0..<w {
                let s = (sy * image.width + x * image.width / w) * 3, d = (y * w + x) * 3
                pixels[d] = image.pixels[s]
                pixels[d + 1] = image.pixels[s + 1]
                pixels[d + 2] = image.pixels[s + 2]
            }
        }
        var out = image
        out.width = w
        out.height = h
        out.pixels = pixels
        return out
    }
}

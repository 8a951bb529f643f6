/// Whether bytes are one well-formed JSON value (RFC 8259), checked without
/// building it. The server splices the event bodies it stored into a
/// `/chat/sync` page as they are (decoding and encoding each again is a
/// large share of its CPU in a flood); this check keeps one damaged row (a
/// hand-edited or corrupted database) from making the whole page
/// unreadable: that event is left out, as a body that failed to decode was.
public enum JSONSyntax {
    /// Deeper nesting is refused rather than followed (no event is near it).
    public static let maxDepth = 256

    /// `text` is exactly one JSON object, blanks around it allowed.
    public static func isObject(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var p = Parser(bytes: bytes)
            p.skipBlanks()
            guard p.peek == UInt8(ascii: "{"), p.value(depth: 0) else { return false }
            p.skipBlanks()
            return p.i == bytes.count
        }
    }

    /// A recursive-descent reader that only moves forward or fails. Input
    /// from a Swift String is valid UTF-8 already, so only the JSON grammar
    /// is checked.
    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipBlanks() {
            while let c = peek, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1 }
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntax.maxDepth, let c = peek else { return false }
            switch c {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            i += 1
            skipBlanks()
            if peek == UInt8(ascii: "}") { i += 1; return true }
            while true {
                guard peek == UInt8(ascii: "\""), string() else { return false }
                skipBlanks()
                guard peek == UInt8(ascii: ":") else { return false }
                i += 1
                skipBlanks()
                guard value(depth: depth) else { return false }
                skipBlanks()
                switch peek {
                case UInt8(ascii: ","): i += 1; skipBlanks()
                case UInt8(ascii: "}"): i += 1; return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> Bool {
            i += 1
            skipBlanks()
            if peek == UInt8(ascii: "]") { i += 1; return true }
            while true {
                guard value(depth: depth) else { return false }
                skipBlanks()
                switch peek {
                case UInt8(ascii: ","): i += 1; skipBlanks()
                case UInt8(ascii: "]"): i += 1; return true
                default: return false
                }
            }
        }

        mutating func string() -> Bool {
            i += 1
            while let c = peek {
                i += 1
                switch c {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let e = peek else { return false }
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let h = peek, h.isHexDigit else { return false }
                            i += 1
                        }
                    default: return false
                    }
                case 0x00..<0x20: return false
                default: continue
                }
            }
            return false
        }

        mutating func number() -> Bool {
            if peek == UInt8(ascii: "-") { i += 1 }
            guard let first = peek, first.isDigit else { return false }
            i += 1
            if first != UInt8(ascii: "0") { digits() }
            if peek == UInt8(ascii: ".") {
                i += 1
                guard peek?.isDigit == true else { return false }
                digits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard peek?.isDigit == true else { return false }
                digits()
            }
            return true
        }

        mutating func digits() {
            while peek?.isDigit == true { i += 1 }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard bytes.count - i >= n else { return false }
            for k in 0..<n where bytes[i + k] != word.utf8Start[k] { return false }
            i += n
            return true
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    var isHexDigit: Bool { isDigit || (self | 0x20 >= 0x61 && self | 0x20 <= 0x66) }
}

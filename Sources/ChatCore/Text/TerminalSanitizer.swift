import Foundation

/// Makes untrusted text (message bodies, names, file names) safe to put on a
/// terminal: it can never move the cursor, retitle the window, write the
/// clipboard or reorder text.
///
/// - ESC sequences (CSI `ESC [ ... final`, OSC/DCS/APC/PM/SOS strings up to
///   their terminator, and two-byte escapes) are removed whole.
/// - TAB becomes a space; other C0 controls and DEL become their visible
///   Control Pictures (`␀`, `␇`, `␡`); C1 controls become `�`.
/// - Bidi overrides, embeddings, isolates and marks become the visible `¦`,
///   so they cannot reorder the line.
/// - Newlines are kept only when `keepNewlines` is true.
public enum TerminalSanitizer {
    public static func sanitize(_ input: String, keepNewlines: Bool = false) -> String {
        var out = String.UnicodeScalarView()
        var scalars = Array(input.unicodeScalars)[...]
        while let s = scalars.first {
            scalars = scalars.dropFirst()
            let v = s.value
            if v == 0x1B || v == 0x9B || v == 0x9D || v == 0x90 || v == 0x9F || v == 0x9E || v == 0x98 {
                scalars = skipEscape(introducer: v, rest: scalars)
                continue
            }
            if v == 0x0A {
                if keepNewlines { out.append(s) } else { out.append(" ") }
                continue
            }
            if v == 0x0D { if !keepNewlines { out.append(" ") }; continue }
            if v == 0x09 { out.append(" "); continue }
            if v < 0x20 {
                // Control Pictures block: U+2400 + code.
                out.append(Unicode.Scalar(0x2400 + v)!)
                continue
            }
            if v == 0x7F { out.append(Unicode.Scalar(0x2421)!); continue }
            if (0x80...0x9F).contains(v) { out.append(Unicode.Scalar(0xFFFD)!); continue }
            if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
                || v == 0x061C {
                out.append(Unicode.Scalar(0x00A6)!)  // ¦
                continue
            }
            out.append(s)
        }
        return String(out)
    }

    /// Skips one escape sequence; `rest` starts after the introducer.
    private static func skipEscape(introducer: UInt32, rest: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
        var r = rest
        var kind: UInt32 = introducer
        if introducer == 0x1B {
            guard let next = r.first else { return r }
            switch next.value {
            case 0x5B: kind = 0x9B; r = r.dropFirst()          // CSI
            case 0x5D: kind = 0x9D; r = r.dropFirst()          // OSC
            case 0x50: kind = 0x90; r = r.dropFirst()          // DCS
            case 0x5F: kind = 0x9F; r = r.dropFirst()          // APC
            case 0x5E: kind = 0x9E; r = r.dropFirst()          // PM
            case 0x58: kind = 0x98; r = r.dropFirst()          // SOS
            default:
                // ESC + intermediates (0x20-0x2F) + one final byte.
                while let c = r.first, (0x20...0x2F).contains(c.value) { r = r.dropFirst() }
                if let c = r.first, (0x30...0x7E).contains(c.value) { r = r.dropFirst() }
                return r
            }
        }
        if kind == 0x9B {
            // Parameters and intermediates, then one final byte 0x40-0x7E.
            while let c = r.first {
                r = r.dropFirst()
                if (0x40...0x7E).contains(c.value) { break }
                if !(0x20...0x3F).contains(c.value) { break }
            }
            return r
        }
        // String sequences end at BEL, ST (ESC \) or C1 ST (0x9C).
        while let c = r.first {
            r = r.dropFirst()
            if c.value == 0x07 || c.value == 0x9C { break }
            if c.value == 0x1B {
                if let n = r.first, n.value == 0x5C { r = r.dropFirst() }
                break
            }
        }
        return r
    }
}


extension TerminalSanitizer {
    /// A text on one row of a list or status line: every line break
    /// (`\r\n`, `\n`, `\r`, U+2028, U+2029) becomes one space, then the text
    /// is sanitised, so a name or preview cannot start a row of its own.
    public static func oneLine(_ s: String) -> String {
        sanitize(MessageKind.flattenLines(s))
    }
}

extension TerminalSanitizer {
    /// JSON text safe to print on a terminal and still the same JSON:
    /// JSONEncoder escapes only U+0000–U+001F, so DEL, the C1 controls
    /// (U+009B is CSI), format (bidi) characters and U+2028/2029 inside
    /// strings are written as `\uXXXX` too, past U+FFFF as a surrogate pair.
    public static func terminalSafeJSON(_ json: String) -> String {
        var text = String.UnicodeScalarView()
        func escape(_ unit: UInt32) {
            let hex = String(unit, radix: 16, uppercase: true)
            text.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
        }
        for scalar in json.unicodeScalars {
            let v = scalar.value
            guard (0x7F...0x9F).contains(v) || scalar.properties.generalCategory == .format || (0x2028...0x2029).contains(v) else {
                text.append(scalar)
                continue
            }
            if v > 0xFFFF {
                escape(0xD800 + ((v - 0x10000) >> 10))
                escape(0xDC00 + ((v - 0x10000) & 0x3FF))
            } else {
                escape(v)
            }
        }
        return String(text)
    }
}

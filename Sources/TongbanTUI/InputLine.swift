import TerminalUI

/// The input bar's text and cursor, edited a grapheme at a time.
struct InputLine: Equatable {
    private(set) var chars: [Character]
    /// Cursor position in graphemes.
    private(set) var cursor: Int

    init(text: String = "") {
        chars = Array(text)
        cursor = chars.count
    }

    var text: String { String(chars) }

    mutating func insert(_ s: String) {
        // Pasted text keeps its newlines but no other control characters.
        let clean = s.replacingOccurrences(of: "\r\n", with: "\n").filter { c in
            c == "\n" || !c.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
        }
        chars.insert(contentsOf: clean, at: cursor)
        cursor += clean.count
    }

    mutating func apply(_ key: Key) {
        switch key {
        case .char(let c): insert(String(c))
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(chars.count, cursor + 1)
        case .home, .ctrl("a"): cursor = lineStart
        case .end, .ctrl("e"): cursor = lineEnd
        case .backspace:
            if cursor > 0 { chars.remove(at: cursor - 1); cursor -= 1 }
        case .delete, .ctrl("d"):
            if cursor < chars.count { chars.remove(at: cursor) }
        case .ctrl("u"):
            // The line's start before the cut: measured after it, from the old cursor, it would run past the end.
            let start = lineStart
            chars.removeSubrange(start..<cursor); cursor = start
        case .ctrl("k"):
            chars.removeSubrange(cursor..<lineEnd)
        case .ctrl("w"):
            var i = cursor
            while i > 0 && chars[i - 1] == " " { i -= 1 }
            while i > 0 && chars[i - 1] != " " && chars[i - 1] != "\n" { i -= 1 }
            chars.removeSubrange(i..<cursor); cursor = i
        case .up:
            // Previous line, same column.
            let col = cursor - lineStart
            guard lineStart > 0 else { return }
            let prevEnd = lineStart - 1
            var prevStart = prevEnd
            while prevStart > 0 && chars[prevStart - 1] != "\n" { prevStart -= 1 }
            cursor = min(prevStart + col, prevEnd)
        case .down:
            let col = cursor - lineStart
            guard lineEnd < chars.count else { return }
            let nextStart = lineEnd + 1
            var nextEnd = nextStart
            while nextEnd < chars.count && chars[nextEnd] != "\n" { nextEnd += 1 }
            cursor = min(nextStart + col, nextEnd)
        default: break
        }
    }

    var lineStart: Int {
        var i = cursor
        while i > 0 && chars[i - 1] != "\n" { i -= 1 }
        return i
    }

    var lineEnd: Int {
        var i = cursor
        while i < chars.count && chars[i] != "\n" { i += 1 }
        return i
    }

    /// Text before the cursor (to place the cursor when drawing).
    var beforeCursor: String { String(chars[..<cursor]) }
}

/// A key press, decoded.
public enum Key: Hashable, Sendable {
    case char(Character)
    case enter, escape, tab, backTab
    case up, down, left, right, home, end, pageUp, pageDown
    case backspace, delete
    case resize
    /// Ctrl plus a lowercase letter (Ctrl-I is `tab`, Ctrl-M is `enter`).
    case ctrl(Character)
    case alt(Character)
    case altEnter
    /// Bracketed paste content.
    case paste(String)
}

/// Raw input from `wget_wch`: a character code or a function-key code.
public enum RawInput: Hashable, Sendable {
    case char(UInt32)
    case function(Int32)
    /// No key within the escape delay (ends a pending Esc).
    case timeout
}

/// Turns raw `wget_wch` results into keys: Esc prefixes (Alt), bracketed
/// paste (`ESC [ 200 ~ … ESC [ 201 ~`), control codes. Pure, so it is tested
/// without a terminal.
public struct KeyDecoder: Sendable {
    public struct FunctionCodes: Sendable {
        public var up, down, left, right, home, end, pageUp, pageDown, backspace, delete, backTab, enter, resize: Int32
        public init(up: Int32, down: Int32, left: Int32, right: Int32, home: Int32, end: Int32, pageUp: Int32, pageDown: Int32,
                    backspace: Int32, delete: Int32, backTab: Int32, enter: Int32, resize: Int32) {
            self.up = up; self.down = down; self.left = left; self.right = right; self.home = home; self.end = end
            self.pageUp = pageUp; self.pageDown = pageDown; self.backspace = backspace; self.delete = delete
            self.backTab = backTab; self.enter = enter; self.resize = resize
        }
    }

    let codes: FunctionCodes
    private var pending: [UInt32] = []
    private var pasting = false
    private var pasteBuffer: [UInt32] = []

    public init(codes: FunctionCodes) { self.codes = codes }

    static let pasteStart: [UInt32] = [27, 91, 50, 48, 48, 126]  // ESC [ 2 0 0 ~
    static let pasteEnd: [UInt32] = [27, 91, 50, 48, 49, 126]    // ESC [ 2 0 1 ~

    /// Feeds one raw input; returns the keys it completes.
    public mutating func feed(_ input: RawInput) -> [Key] {
        if pasting {
            guard case .char(let c) = input else { return [] }
            pasteBuffer.append(c)
            if pasteBuffer.count >= 6, Array(pasteBuffer.suffix(6)) == Self.pasteEnd {
                pasteBuffer.removeLast(6)
                pasting = false
                let text = String(String.UnicodeScalarView(pasteBuffer.compactMap(Unicode.Scalar.init)))
                pasteBuffer = []
                return [.paste(text.replacingOccurrences(of: "\r", with: "\n"))]
            }
            return []
        }
        switch input {
        case .timeout:
            return flushPending()
        case .function(let f):
            var keys = flushPending()
            if let k = function(f) { keys.append(k) }
            return keys
        case .char(let c):
            if pending.isEmpty {
                if c == 27 { pending = [27]; return [] }
                return plain(c).map { [$0] } ?? []
            }
            pending.append(c)
            if Self.pasteStart.starts(with: pending) {
                if pending.count == Self.pasteStart.count { pending = []; pasting = true }
                return []
            }
            if pending.count == 2 {
                // ESC + key: Alt, unless it starts a CSI/SS3 sequence.
                if c == 91 || c == 79 { return [] }
                pending = []
                if c == 13 || c == 10 { return [.altEnter] }
                if c == 27 { pending = [27]; return [.escape] }
                if let s = Unicode.Scalar(c) { return [.alt(Character(s))] }
                return []
            }
            // CSI / SS3 sequences ncurses did not translate: finish at a final byte.
            if (64...126).contains(c) {
                let seq = pending
                pending = []
                return csi(seq).map { [$0] } ?? []
            }
            if pending.count > 16 { pending = [] }
            return []
        }
    }

    mutating func flushPending() -> [Key] {
        defer { pending = [] }
        switch pending.count {
        case 0: return []
        case 1: return [.escape]
        default:
            // ESC [ or ESC O on its own: Alt-[ / Alt-O.
            return pending.count == 2 ? [.alt(Character(Unicode.Scalar(pending[1]) ?? "?"))] : [.escape]
        }
    }

    func csi(_ seq: [UInt32]) -> Key? {
        guard seq.count >= 3 else { return nil }
        let body = String(String.UnicodeScalarView(seq.dropFirst(2).compactMap(Unicode.Scalar.init)))
        switch body {
        case "A": return .up
        case "B": return .down
        case "C": return .right
        case "D": return .left
        case "H", "1~", "7~": return .home
        case "F", "4~", "8~": return .end
        case "5~": return .pageUp
        case "6~": return .pageDown
        case "3~": return .delete
        case "Z": return .backTab
        case "13;3u", "13;3~": return .altEnter
        default: return nil
        }
    }

    func plain(_ c: UInt32) -> Key? {
        switch c {
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(Unicode.Scalar(c + 96)!))
        case 0, 28...31: return nil
        default:
            guard let s = Unicode.Scalar(c) else { return nil }
            return .char(Character(s))
        }
    }

    func function(_ f: Int32) -> Key? {
        switch f {
        case codes.up: return .up
        case codes.down: return .down
        case codes.left: return .left
        case codes.right: return .right
        case codes.home: return .home
        case codes.end: return .end
        case codes.pageUp: return .pageUp
        case codes.pageDown: return .pageDown
        case codes.backspace: return .backspace
        case codes.delete: return .delete
        case codes.backTab: return .backTab
        case codes.enter: return .enter
        case codes.resize: return .resize
        default: return nil
        }
    }
}

import CNCurses

/// Turns the raw results of ncurses' `wget_wch` into `Key`s. Pure and
/// terminal-free, so it is unit tested; `Terminal` feeds it from its thread.
///
/// ncurses (keypad on) already turns the terminal's known function-key
/// sequences into key codes. What is left for the decoder:
/// - ESC handling: ESC then a timeout is `.escape`; ESC then a printable
///   character is `.alt`; ESC then CR/LF is `.altEnter`; ESC [ … and ESC O …
///   sequences ncurses did not know are parsed as CSI / SS3 (arrows, Home,
///   End, Delete, PageUp/Down, Shift-Tab; others are swallowed, never typed).
/// - Bracketed paste: everything between ESC[200~ and ESC[201~ (as the
///   `Code.pasteBegin` / `Code.pasteEnd` codes `Terminal` registers with
///   `define_key`, or as raw characters) becomes one `.paste`, with CR and
///   CRLF turned into "\n" and other control characters except tab dropped.
/// - Control codes: see `Key.ctrl`.
/// - Code points that belong to one grapheme (an emoji picker's 👍 + 🏽, a
///   base letter + combining accent, two regional indicators) are joined
///   into one `.char` when they arrive in the same read batch: a printable
///   character is held until the next input or `endOfBatch()`.
public struct KeyDecoder: Sendable {
    /// One `wget_wch` result.
    public enum Input: Hashable, Sendable {
        /// `OK`: a character (a Unicode code point, or a control code).
        case char(UInt32)
        /// `KEY_CODE_YES`: an ncurses key code (see `Code`).
        case keyCode(Int32)
        /// `ERR`: nothing arrived within the poll timeout.
        case timeout
        /// `KEY_MOUSE`, read with `getmouse`.
        case mouse(MouseEvent)
    }

    /// The ncurses key codes the decoder understands.
    public enum Code {
        public static let up = Int32(tb_key_up())
        public static let down = Int32(tb_key_down())
        public static let left = Int32(tb_key_left())
        public static let right = Int32(tb_key_right())
        public static let home = Int32(tb_key_home())
        public static let end = Int32(tb_key_end())
        public static let pageUp = Int32(tb_key_ppage())
        public static let pageDown = Int32(tb_key_npage())
        public static let backspace = Int32(tb_key_backspace())
        public static let delete = Int32(tb_key_dc())
        public static let backTab = Int32(tb_key_btab())
        public static let enter = Int32(tb_key_enter())
        public static let resize = Int32(tb_key_resize())
        /// Some terminfo entries send Home/End as "find"/"select".
        public static let find = Int32(tb_key_find())
        public static let select = Int32(tb_key_select())
        /// Codes `Terminal` assigns to ESC[200~ / ESC[201~ with `define_key`.
        public static let pasteBegin: Int32 = 0x7000
        public static let pasteEnd: Int32 = 0x7001
    }

    private enum State: Sendable {
        case normal
        case escape
        case csi([UInt32])
        /// `ESC _` … `ESC \`: an application program command (kitty's replies);
        /// `escaped` once its closing ESC arrived.
        case apc([UInt32], escaped: Bool)
        /// `ESC ]` … `BEL` or `ESC \`: an operating system command (the
        /// terminal's background colour); `escaped` once a closing ESC arrived.
        case osc([UInt32], escaped: Bool)
        case ss3
        case paste
    }

    private var state: State = .normal
    /// A printable grapheme that later code points may still extend.
    private var pending: Character?
    private var paste = String.UnicodeScalarView()
    /// The part of a raw ESC[201~ seen inside a paste.
    private var pasteEscape: [UInt32] = []
    private var pasteLastWasCR = false
    private var pasteIdlePolls = 0
    private let pasteTimeoutPolls: Int

    private static let pasteEndMarker: [UInt32] = Array("\u{1B}[201~".unicodeScalars.map(\.value))

    /// `pasteTimeoutPolls`: a paste whose end marker does not arrive within
    /// this many consecutive timeouts is delivered as it is (so a lost marker
    /// cannot swallow the keyboard).
    public init(pasteTimeoutPolls: Int = 60) {
        self.pasteTimeoutPolls = max(1, pasteTimeoutPolls)
    }

    /// True while a sequence is incomplete (ESC, CSI, paste) or a character is
    /// held for joining.
    public var isPending: Bool {
        if pending != nil { return true }
        if case .normal = state { return false }
        return true
    }

    /// Feeds one input and returns the keys it completes (often none or one).
    public mutating func feed(_ input: Input) -> [Key] {
        var out: [Key] = []
        feed(input, into: &out)
        return out
    }

    /// Call when no more input is immediately available: releases a held
    /// character. (An ESC waits for a `.timeout` instead.)
    public mutating func endOfBatch() -> [Key] {
        var out: [Key] = []
        flushPending(into: &out)
        return out
    }

    /// Feeds all inputs, then `endOfBatch()`.
    public mutating func decode(_ inputs: [Input]) -> [Key] {
        var out: [Key] = []
        for input in inputs {
            feed(input, into: &out)
        }
        flushPending(into: &out)
        return out
    }

    // MARK: - States

    private mutating func feed(_ input: Input, into out: inout [Key]) {
        if case .mouse(let event) = input {
            // ncurses took the whole report: it ends nothing but a held character.
            if case .paste = state { return }
            flushPending(into: &out)
            out.append(.mouse(event))
            return
        }
        if case .paste = state {
            feedPaste(input, into: &out)
            return
        }
        if case .normal = state, case .char(let v) = input, let scalar = Self.printable(v) {
            join(scalar, into: &out)
            return
        }
        flushPending(into: &out)
        switch state {
        case .normal:
            feedNormal(input, into: &out)
        case .escape:
            feedEscape(input, into: &out)
        case .csi(let params):
            feedCSI(params, input, into: &out)
        case .apc(let body, let escaped):
            feedAPC(body, escaped: escaped, input, into: &out)
        case .osc(let body, let escaped):
            feedOSC(body, escaped: escaped, input, into: &out)
        case .ss3:
            feedSS3(input, into: &out)
        case .paste:
            break
        }
    }

    private mutating func feedNormal(_ input: Input, into out: inout [Key]) {
        switch input {
        case .mouse:  // taken by feed(_:into:) before the state machine
            break
        case .timeout:
            break
        case .keyCode(let code):
            if code == Code.pasteBegin {
                beginPaste()
            } else if let key = Self.key(forCode: code) {
                out.append(key)
            }
        case .char(let v):
            if v == 0x1B {
                state = .escape
            } else if let key = Self.controlKey(v) {
                out.append(key)
            }
        }
    }

    private mutating func feedEscape(_ input: Input, into out: inout [Key]) {
        switch input {
        case .mouse:  // taken by feed(_:into:) before the state machine
            break
        case .timeout:
            state = .normal
            out.append(.escape)
        case .char(0x1B):
            out.append(.escape)
        case .char(0x0D), .char(0x0A):
            state = .normal
            out.append(.altEnter)
        case .char(0x5B):  // [
            state = .csi([])
        case .char(0x4F):  // O
            state = .ss3
        case .char(0x5F):  // _: a terminal's reply, never a key
            state = .apc([], escaped: false)
        case .char(0x5D):  // ]: a reply, or Alt-] when nothing follows in time
            state = .osc([], escaped: false)
        case .char(let v):
            state = .normal
            if let scalar = Self.printable(v) {
                out.append(.alt(Character(scalar)))
            } else {
                out.append(.escape)
                feedNormal(input, into: &out)
            }
        case .keyCode(let code):
            state = .normal
            out.append(.escape)
            if code == Code.pasteBegin {
                beginPaste()
            } else if let key = Self.key(forCode: code) {
                out.append(key)
            }
        }
    }

    private mutating func feedCSI(_ params: [UInt32], _ input: Input, into out: inout [Key]) {
        if case .char(let v) = input {
            if (0x20...0x3F).contains(v) {
                // Parameters and intermediates; give up on absurd lengths.
                state = params.count < 32 ? .csi(params + [v]) : .normal
                return
            }
            if (0x40...0x7E).contains(v) {
                state = .normal
                if let key = Self.csiKey(params: params, final: v) {
                    out.append(key)
                } else if v == 0x7E, params == Array("200".unicodeScalars.map(\.value)) {
                    beginPaste()
                }
                return
            }
        }
        // Not a CSI sequence after all: it was Alt-[ and then typing.
        state = .normal
        out.append(.alt("["))
        for p in params {
            if let scalar = Self.printable(p) { out.append(.char(Character(scalar))) }
        }
        if input != .timeout {
            feed(input, into: &out)
        }
    }

    static let maxReply = 4096

    /// Collects an APC body up to `ESC \`; one over 4 KiB, or cut off by
    /// a timeout, is dropped whole (it is no key either way).
    private mutating func feedAPC(_ body: [UInt32], escaped: Bool, _ input: Input, into out: inout [Key]) {
        guard case .char(let v) = input else {
            if input == .timeout { state = .normal }
            return
        }
        if escaped {
            state = .normal
            if v == 0x5C, body.count < Self.maxReply {
                out.append(.reply(.graphics(String(String.UnicodeScalarView(body.compactMap(Unicode.Scalar.init))))))
            }
            return
        }
        if v == 0x1B {
            state = .apc(body, escaped: true)
        } else {
            // Past the cap the body is no longer kept, only read to its end.
            state = .apc(body.count < Self.maxReply ? body + [v] : body, escaped: false)
        }
    }

    /// Collects an OSC body up to BEL or `ESC \` (the same cap as APC). Cut
    /// off by a timeout before anything came, it was Alt-].
    private mutating func feedOSC(_ body: [UInt32], escaped: Bool, _ input: Input, into out: inout [Key]) {
        guard case .char(let v) = input else {
            if input == .timeout {
                state = .normal
                if body.isEmpty && !escaped { out.append(.alt("]")) }
            }
            return
        }
        if v == 0x07 || (escaped && v == 0x5C) {
            state = .normal
            let text = String(String.UnicodeScalarView(body.compactMap(Unicode.Scalar.init)))
            if body.count < Self.maxReply, let reply = Self.oscReply(text) { out.append(.reply(reply)) }
            return
        }
        if escaped {
            state = .normal  // ESC then something else: the reply was broken off
            return
        }
        state = v == 0x1B ? .osc(body, escaped: true) : .osc(body.count < Self.maxReply ? body + [v] : body, escaped: false)
    }

    private mutating func feedSS3(_ input: Input, into out: inout [Key]) {
        if case .char(let v) = input, (0x40...0x7E).contains(v) {
            state = .normal
            switch v {
            case 0x41: out.append(.up)
            case 0x42: out.append(.down)
            case 0x43: out.append(.right)
            case 0x44: out.append(.left)
            case 0x48: out.append(.home)
            case 0x46: out.append(.end)
            case 0x4D: out.append(.enter)
            default: break  // F1–F4 and keypad keys: not used
            }
            return
        }
        state = .normal
        out.append(.alt("O"))
        if input != .timeout {
            feed(input, into: &out)
        }
    }

    // MARK: - Paste

    private mutating func beginPaste() {
        state = .paste
        paste = String.UnicodeScalarView()
        pasteEscape = []
        pasteLastWasCR = false
        pasteIdlePolls = 0
    }

    private mutating func endPaste(into out: inout [Key]) {
        state = .normal
        out.append(.paste(String(paste)))
        paste = String.UnicodeScalarView()
        pasteEscape = []
    }

    private mutating func feedPaste(_ input: Input, into out: inout [Key]) {
        switch input {
        case .mouse:  // taken by feed(_:into:) before the state machine
            break
        case .timeout:
            pasteIdlePolls += 1
            if pasteIdlePolls >= pasteTimeoutPolls {
                endPaste(into: &out)
            }
        case .keyCode(let code):
            pasteIdlePolls = 0
            if code == Code.pasteEnd {
                endPaste(into: &out)
            } else if code == Code.resize {
                out.append(.resize)  // the paste goes on
            } else if code == Code.enter {
                appendPaste(0x0A)
            }
        case .char(let v):
            pasteIdlePolls = 0
            if !pasteEscape.isEmpty || v == 0x1B {
                let candidate = pasteEscape + [v]
                if Self.pasteEndMarker.starts(with: candidate) {
                    pasteEscape = candidate
                    if candidate.count == Self.pasteEndMarker.count {
                        endPaste(into: &out)
                    }
                    return
                }
                // Not the end marker: keep what followed the ESC as text.
                for p in pasteEscape.dropFirst() {
                    appendPaste(p)
                }
                pasteEscape = v == 0x1B ? [v] : []
                if v == 0x1B { return }
            }
            appendPaste(v)
        }
    }

    private mutating func appendPaste(_ v: UInt32) {
        defer { pasteLastWasCR = v == 0x0D }
        switch v {
        case 0x0D:
            paste.append("\n")
        case 0x0A:
            if !pasteLastWasCR { paste.append("\n") }
        case 0x09:
            paste.append("\t")
        default:
            if let scalar = Self.printable(v) { paste.append(scalar) }
        }
    }

    // MARK: - Characters

    private mutating func join(_ scalar: Unicode.Scalar, into out: inout [Key]) {
        guard let held = pending else {
            pending = Character(scalar)
            return
        }
        var s = String(held)
        s.unicodeScalars.append(scalar)
        if s.count == 1, let joined = s.first {
            pending = joined
        } else {
            out.append(.char(held))
            pending = Character(scalar)
        }
    }

    private mutating func flushPending(into out: inout [Key]) {
        if let held = pending {
            out.append(.char(held))
            pending = nil
        }
    }

    /// The scalar for a printable code point: not C0, DEL, C1 or a surrogate.
    private static func printable(_ v: UInt32) -> Unicode.Scalar? {
        guard v >= 0x20, v != 0x7F, !(0x80...0x9F).contains(v) else { return nil }
        return Unicode.Scalar(v)
    }

    private static func controlKey(_ v: UInt32) -> Key? {
        switch v {
        case 0x0D: return .enter
        case 0x09: return .tab
        case 0x08, 0x7F: return .backspace
        case 0x00: return .ctrl(" ")
        case 0x01...0x1A:
            return Unicode.Scalar(v + 0x60).map { .ctrl(Character($0)) }
        case 0x1C: return .ctrl("\\")
        case 0x1D: return .ctrl("]")
        case 0x1E: return .ctrl("^")
        case 0x1F: return .ctrl("_")
        default: return nil
        }
    }
}

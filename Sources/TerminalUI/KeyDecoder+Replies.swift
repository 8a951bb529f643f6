/// What key codes, CSI and OSC sequences mean: keys, or a terminal
/// answering a query.
extension KeyDecoder {
    static func key(forCode code: Int32) -> Key? {
        switch code {
        case Code.up: return .up
        case Code.down: return .down
        case Code.left: return .left
        case Code.right: return .right
        case Code.home, Code.find: return .home
        case Code.end, Code.select: return .end
        case Code.pageUp: return .pageUp
        case Code.pageDown: return .pageDown
        case Code.backspace: return .backspace
        case Code.delete: return .delete
        case Code.backTab: return .backTab
        case Code.enter: return .enter
        case Code.resize: return .resize
        default: return nil
        }
    }

    /// Keys for the CSI sequences xterm-like terminals send (modifiers such
    /// as ESC[1;5A are ignored: Ctrl-Up is Up).
    static func csiKey(params: [UInt32], final: UInt32) -> Key? {
        if final == 0x63, params.first == 0x3F {  // ESC [ ? … c: device attributes
            return .reply(.deviceAttributes(String(String.UnicodeScalarView(params.dropFirst().compactMap(Unicode.Scalar.init)))))
        }
        if final == 0x74 {  // ESC [ 6 ; height ; width t: a cell's size in pixels
            let numbers = String(String.UnicodeScalarView(params.compactMap(Unicode.Scalar.init))).split(separator: ";").map { Int($0) }
            if numbers.count == 3, numbers[0] == 6, let h = numbers[1], let w = numbers[2], (1...200).contains(w), (1...400).contains(h) {
                return .reply(.cellSize(width: w, height: h))
            }
            return nil
        }
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x5A: return .backTab
        case 0x7E:
            let first = String(String.UnicodeScalarView(params.compactMap(Unicode.Scalar.init)))
                .split(separator: ";").first.map(String.init) ?? ""
            switch first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `11;rgb:RRRR/GGGG/BBBB` (1–4 hex digits a component): the background.
    static func oscReply(_ text: String) -> TerminalReply? {
        guard text.hasPrefix("11;rgb:") else { return nil }
        let parts = text.dropFirst(7).split(separator: "/")
        guard parts.count == 3 else { return nil }
        var rgb: [UInt8] = []
        for p in parts {
            guard (1...4).contains(p.count), let v = UInt32(p, radix: 16) else { return nil }
            let max = (UInt32(1) << (4 * UInt32(p.count))) - 1
            rgb.append(UInt8((v * 255 + max / 2) / max))
        }
        return .background(red: rgb[0], green: rgb[1], blue: rgb[2])
    }
}

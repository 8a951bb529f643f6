import Foundation
import TerminalUI

/// Key bindings: `Binding.table`, overridden per action by
/// `$XDG_CONFIG_HOME/tongban/keys.json`, e.g. `{"list.pin": "P", "quit": "Ctrl-Q"}`.
/// A rebound key is added to the action; its default keys keep working.
public struct KeyMap: Sendable, Equatable {
    /// Custom key -> action, per scope.
    var custom: [Binding.Scope: [Key: Action]] = [:]

    /// A key `keys.json` bound to an action.
    public struct Rebound: Sendable, Equatable {
        public let action: String
        public let key: Key
    }
    /// What `keys.json` bound, in action-name order (the help lists them).
    public private(set) var rebound: [Rebound] = []

    public init() {}

    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Reads `keys.json`; a missing file means the defaults.
    public static func load(from url: URL) throws -> KeyMap {
        guard let data = FileManager.default.contents(atPath: url.path) else { return KeyMap() }
        guard let table = try? JSONSerialization.jsonObject(with: data) as? [String: String] else {
            throw Problem(description: "\(url.path): expected an object of action names to keys, e.g. {\"list.pin\": \"P\"}")
        }
        var map = KeyMap()
        for (name, spec) in table.sorted(by: { $0.key < $1.key }) {
            guard let action = Action(rawValue: name), let scope = Binding.scope(of: action) else {
                throw Problem(description: "\(url.path): unknown action \(name)")
            }
            guard let key = parse(spec) else { throw Problem(description: "\(url.path): cannot read the key \(spec) for \(name)") }
            map.custom[scope, default: [:]][key] = action
            map.rebound.append(Rebound(action: name, key: key))
        }
        return map
    }

    /// What `key` does with the keyboard on `scope` (list, messages or
    /// input): a custom binding first, then the table; keys bound
    /// everywhere apply too, except while typing, where only Tab, Shift-Tab
    /// and Ctrl-C (and rebound control keys) are not text.
    func action(for key: Key, in scope: Binding.Scope) -> Action? {
        if let a = custom[scope]?[key] { return a }
        let typing = scope == .input
        if let a = custom[.everywhere]?[key], !typing || Self.isControl(key) { return a }
        if let a = Self.defaults[scope]?[key] { return a }
        if !typing || Binding.typingKeys.contains(key) { return Self.defaults[.everywhere]?[key] }
        return nil
    }

    static func isControl(_ key: Key) -> Bool {
        if case .ctrl = key { return true }
        return Binding.typingKeys.contains(key)
    }

    static let defaults: [Binding.Scope: [Key: Action]] = {
        var map: [Binding.Scope: [Key: Action]] = [:]
        for b in Binding.table { if let a = b.action { for k in b.keys { map[b.scope, default: [:]][k] = a } } }
        return map
    }()

    /// "x", "Enter", "Esc", "Tab", "Up", "Down", "Left", "Right", "Home",
    /// "End", "PgUp", "PgDn", "Ctrl-X", "Alt-X".
    public static func parse(_ s: String) -> Key? {
        let named: [String: Key] = ["enter": .enter, "esc": .escape, "escape": .escape, "tab": .tab, "up": .up, "down": .down,
                                    "left": .left, "right": .right, "home": .home, "end": .end, "pgup": .pageUp, "pgdn": .pageDown,
                                    "backspace": .backspace, "delete": .delete]
        if let k = named[s.lowercased()] { return k }
        if s.count == 1, let c = s.first { return .char(c) }
        let lower = s.lowercased()
        if lower.hasPrefix("ctrl-"), s.count == 6, let c = lower.last, c.isLetter { return .ctrl(c) }
        if lower.hasPrefix("alt-"), s.count == 5, let c = s.last { return .alt(c) }
        return nil
    }

    /// A key as `keys.json` spells it ("P", "Enter", "Ctrl-Q", "Alt-x"); a
    /// blank or control character by its code point, so it cannot break the
    /// help's columns or reach the terminal.
    public static func name(of key: Key) -> String {
        switch key {
        case .char(" "): return "Space"
        case .char(let c):
            if c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isWhitespace }) {
                return c.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
            }
            return String(c)
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .up: return "Up"
        case .down: return "Down"
        case .left: return "Left"
        case .right: return "Right"
        case .home: return "Home"
        case .end: return "End"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .ctrl(let c): return "Ctrl-" + String(c).uppercased()
        case .alt(let c): return "Alt-" + name(of: .char(c))
        case .altEnter: return "Alt-Enter"
        case .resize, .paste, .reply, .mouse: return ""
        }
    }
}

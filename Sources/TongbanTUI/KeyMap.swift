import Foundation
import TerminalUI

/// Key bindings: the defaults below, overridden per action by
/// `$XDG_CONFIG_HOME/tongban/keys.json`, e.g. `{"list.pin": "P", "quit": "Ctrl-Q"}`.
/// A rebound key is translated to the action's default key before the app
/// sees it, so the handlers keep one vocabulary.
public struct KeyMap: Sendable, Equatable {
    public enum Scope: String, Sendable { case list, messages }

    /// Action name -> (scope, default key).
    public static let defaults: [String: (Scope?, Key)] = [
        "list.down": (.list, .char("j")), "list.up": (.list, .char("k")), "list.top": (.list, .char("g")),
        "list.bottom": (.list, .char("G")), "list.pin": (.list, .char("p")), "list.delete": (.list, .char("d")),
        "list.new": (.list, .char("n")), "list.signals": (.list, .char("s")), "list.refresh": (.list, .char("r")),
        "list.search": (.list, .char("/")),
        "messages.up": (.messages, .char("k")), "messages.down": (.messages, .char("j")),
        "messages.revoke": (.messages, .char("R")), "messages.type": (.messages, .char("i")),
        "messages.settings": (.messages, .char(",")), "messages.open": (.messages, .char("o")),
        "messages.search": (.messages, .char("/")), "messages.bottom": (.messages, .char("G")),
        "help": (nil, .char("?")), "quit": (nil, .char("q")),
    ]

    /// Custom key -> default key, per scope.
    var translations: [Scope: [Key: Key]] = [:]

    /// A key `keys.json` bound to an action (the default key works too).
    public struct Binding: Sendable, Equatable {
        public let action: String
        public let key: Key
    }
    /// What `keys.json` bound, in action-name order (the help lists them).
    public private(set) var rebound: [Binding] = []

    public init() {}

    public static func == (a: KeyMap, b: KeyMap) -> Bool { a.translations == b.translations }

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
        for (action, spec) in table.sorted(by: { $0.key < $1.key }) {
            guard let (scope, original) = defaults[action] else {
                throw Problem(description: "\(url.path): unknown action \(action)")
            }
            guard let key = parse(spec) else { throw Problem(description: "\(url.path): cannot read the key \(spec) for \(action)") }
            for s in scope.map({ [$0] }) ?? [.list, .messages] { map.translations[s, default: [:]][key] = original }
            map.rebound.append(Binding(action: action, key: key))
        }
        return map
    }

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
        case .resize, .paste: return ""
        }
    }

    /// The key the handlers of `scope` understand.
    public func canonical(_ key: Key, in scope: Scope) -> Key {
        translations[scope]?[key] ?? key
    }
}

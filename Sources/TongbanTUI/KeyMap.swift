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

    /// The key the handlers of `scope` understand.
    public func canonical(_ key: Key, in scope: Scope) -> Key {
        translations[scope]?[key] ?? key
    }
}

import Foundation
import TerminalUI

/// `config.json` beside `keys.json` (`$XDG_CONFIG_HOME/tongban/`): how the
/// full screen looks and behaves, e.g.
/// `{"theme": "light", "colors": {"dim": "#606060", "prompt": {"fg": "blue", "bold": true}}, "mouse": false}`.
/// A missing file means the defaults; a bad entry is reported and the rest
/// still applies.
public struct ClientConfig: Equatable, Sendable {
    /// The built-in theme under the overrides.
    var theme = ThemePalette.Name.dark
    /// Whether `config.json` named the theme (else the terminal's background decides).
    var themeNamed = false
    /// `"colors"`: roles drawn otherwise than the theme draws them.
    var overrides: [ThemePalette.Role: Style] = [:]
    var palette: ThemePalette {
        var p = ThemePalette.named(theme)
        for (role, style) in overrides { p[role] = style }
        return p
    }
    /// Clicks and the wheel (`--no-mouse` turns them off too).
    public var mouse = true
    /// OSC 8 hyperlinks around links (off where a terminal prints them as junk).
    public var hyperlinks = true

    public init() {}

    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The question whose answer (`TerminalReply.background`) `adopt` takes:
    /// asked only when `config.json` names no theme.
    public var backgroundQuery: String? { themeNamed ? nil : "\u{1B}]11;?\u{1B}\\" }

    /// The terminal said its background colour: light on a light one
    /// (relative luminance over one half), unless `config.json` chose.
    public mutating func adopt(background red: UInt8, _ green: UInt8, _ blue: UInt8) {
        guard !themeNamed else { return }
        let luminance = 0.2126 * Double(red) + 0.7152 * Double(green) + 0.0722 * Double(blue)
        theme = luminance > 127.5 ? .light : .dark
    }

    /// The theme when `config.json` names none, until the terminal answers:
    /// light when `COLORFGBG` says the background is light (e.g. "0;15"), else dark.
    static func defaultTheme(environment: [String: String]) -> ThemePalette.Name {
        guard let bg = environment["COLORFGBG"]?.split(separator: ";").last.flatMap({ Int($0) }) else { return .dark }
        return bg == 7 || bg == 15 ? .light : .dark
    }

    /// Reads `url`; the problems found are returned beside what could be read.
    public static func load(from url: URL, environment: [String: String]) -> (ClientConfig, [Problem]) {
        var config = ClientConfig()
        config.theme = defaultTheme(environment: environment)
        guard let data = FileManager.default.contents(atPath: url.path) else { return (config, []) }
        guard let table = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return (config, [Problem(description: "\(url.path): expected an object, e.g. {\"theme\": \"light\"}")])
        }
        var problems: [Problem] = []
        func problem(_ text: String) { problems.append(Problem(description: "\(url.path): \(text)")) }
        if let theme = table["theme"] {
            if let name = (theme as? String).flatMap(ThemePalette.Name.init(rawValue:)) {
                config.theme = name
                config.themeNamed = true
            } else {
                problem("unknown theme \(theme) (\(ThemePalette.Name.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        if let colors = table["colors"] {
            if let colors = colors as? [String: Any] {
                for (name, value) in colors.sorted(by: { $0.key < $1.key }) {
                    guard let role = ThemePalette.Role(rawValue: name) else {
                        problem("unknown colour role \(name) (\(ThemePalette.Role.allCases.map(\.rawValue).joined(separator: ", ")))")
                        continue
                    }
                    if let style = style(value) { config.overrides[role] = style } else { problem("cannot read the colour of \(name)") }
                }
            } else {
                problem("\"colors\" must be an object of roles to colours")
            }
        }
        for (key, keyPath) in [("mouse", \ClientConfig.mouse), ("hyperlinks", \ClientConfig.hyperlinks)] {
            guard let value = table[key] else { continue }
            if let flag = value as? Bool { config[keyPath: keyPath] = flag } else { problem("\"\(key)\" must be true or false") }
        }
        for key in table.keys.sorted() where !["theme", "colors", "mouse", "hyperlinks"].contains(key) {
            problem("unknown setting \(key)")
        }
        return (config, problems)
    }

    /// A colour alone (the text's colour) or `{"fg", "bg", "bold", "underline", "reverse", "dim"}`.
    static func style(_ value: Any) -> Style? {
        if let colour = colour(value) { return Style(fg: colour) }
        guard let table = value as? [String: Any] else { return nil }
        var style = Style()
        for (key, v) in table {
            switch key {
            case "fg": guard let c = colour(v) else { return nil }; style.fg = c
            case "bg": guard let c = colour(v) else { return nil }; style.bg = c
            case "bold": guard let b = v as? Bool else { return nil }; style.bold = b
            case "underline": guard let b = v as? Bool else { return nil }; style.underline = b
            case "reverse": guard let b = v as? Bool else { return nil }; style.reverse = b
            case "dim": guard let b = v as? Bool else { return nil }; style.dim = b
            default: return nil
            }
        }
        return style
    }

    static let colourNames: [String: TermColor] = [
        "default": .default, "black": .black, "red": .red, "green": .green, "yellow": .yellow, "blue": .blue,
        "magenta": .magenta, "cyan": .cyan, "white": .white, "gray": .gray, "grey": .gray,
        "bright-red": .brightRed, "bright-green": .brightGreen, "bright-yellow": .brightYellow, "bright-blue": .brightBlue,
        "bright-magenta": .brightMagenta, "bright-cyan": .brightCyan, "bright-white": .brightWhite,
    ]

    /// "red", "bright-blue", "default", 0–255 (an xterm palette index) or "#rrggbb".
    static func colour(_ value: Any) -> TermColor? {
        if let n = value as? Int { return (0...255).contains(n) ? .index(UInt8(n)) : nil }
        guard let s = (value as? String)?.lowercased() else { return nil }
        if let named = colourNames[s] { return named }
        guard s.hasPrefix("#"), s.count == 7, let v = UInt32(s.dropFirst(), radix: 16) else { return nil }
        return .rgb(UInt8(v >> 16), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF))
    }
}

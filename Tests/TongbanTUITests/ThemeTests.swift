import ChatCore
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Themes: every one drawn as a golden frame; the light one readable on
/// white; `config.json` read with its problems named; `NO_COLOR` wins.
@Suite struct ThemeTests {
    static let zh = Localizer(language: .zhHans)

    static func chat() -> AppState {
        var s = Fixture.chatState(width: 120, height: 48)
        s.focus = .messages
        s.selectedId = "m-text-cjk"
        return s
    }

    @Test(arguments: [ThemePalette.Name.light, .highContrast])
    func everyThemeHasGoldenFrames(_ name: ThemePalette.Name) throws {
        let options = RenderOptions(palette: .named(name))
        try Golden.check("theme-\(name.rawValue)-chat", Self.chat(), Self.zh, options)
        var list = Fixture.state(width: 100, height: 24)
        list.listIndex = 1
        try Golden.check("theme-\(name.rawValue)-list", list, Self.zh, options)
    }

    /// Text in grey, yellow, white or a bright colour on the terminal's own
    /// (white) background cannot be read: the light theme draws none.
    @Test func theLightThemeIsReadableOnWhite() {
        let unreadable = Set<UInt8>([3, 7, 8, 10, 11, 14, 15]).union(244...255)
        func offenders(_ palette: ThemePalette) -> [String] {
            var found: [String] = []
            for s in [Self.chat(), Fixture.state(width: 100, height: 24)] {
                let g = Screen.render(s, Self.zh, RenderOptions(palette: palette))
                for y in 0..<g.height {
                    for x in 0..<g.width {
                        let c = g[x, y]
                        guard !c.isContinuation, !c.text.trimmingCharacters(in: .whitespaces).isEmpty,
                              c.style.bg == .default, !c.style.reverse,
                              case .index(let n) = c.style.fg, unreadable.contains(n) else { continue }
                        found.append("\(c.text)@\(x),\(y):\(n)")
                    }
                }
            }
            return found
        }
        #expect(!offenders(.dark).isEmpty, "the dark theme does use grey (the check can fail)")
        #expect(offenders(.light).isEmpty, "\(offenders(.light).prefix(5))")
    }

    @Test func configJSONChoosesTheThemeAndOverridesRoles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("config.json")
        try Data(##"{"theme": "light", "colors": {"dim": "#606060", "prompt": {"fg": "blue", "bold": true}, "mine": 28}, "mouse": false}"##.utf8)
            .write(to: file)
        let (config, problems) = ClientConfig.load(from: file, environment: [:])
        #expect(problems.isEmpty)
        #expect(config.palette[.dim] == Style(fg: .rgb(0x60, 0x60, 0x60)))
        #expect(config.palette[.prompt] == Style(fg: .blue, bold: true))
        #expect(config.palette[.mine] == Style(fg: .index(28)))
        #expect(config.palette[.error] == ThemePalette.light[.error], "what is not overridden is the theme's")
        #expect(!config.mouse && config.hyperlinks)

        try Data(#"{"theme": "solarized", "colors": {"dim": "mauve", "sparkle": "red", "title": "red"}, "mouse": "yes", "fonts": 1}"#.utf8)
            .write(to: file)
        let (bad, said) = ClientConfig.load(from: file, environment: [:])
        #expect(said.map(\.description).contains { $0.contains("unknown theme solarized") })
        #expect(said.map(\.description).contains { $0.contains("cannot read the colour of dim") })
        #expect(said.map(\.description).contains { $0.contains("unknown colour role sparkle") })
        #expect(said.map(\.description).contains { $0.contains("\"mouse\" must be true or false") })
        #expect(said.map(\.description).contains { $0.contains("unknown setting fonts") })
        #expect(bad.palette[.title] == Style(fg: .red), "a good entry still applies beside bad ones")
        #expect(bad.mouse)
    }

    @Test func aLightTerminalGetsTheLightThemeByDefault() {
        let none = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).json")
        #expect(ClientConfig.load(from: none, environment: ["COLORFGBG": "0;15"]).0.palette == .light)
        #expect(ClientConfig.load(from: none, environment: ["COLORFGBG": "15;0"]).0.palette == .dark)
        #expect(ClientConfig.load(from: none, environment: [:]).0.palette == .dark)
    }

    /// The terminal's answer to OSC 11 picks the theme config.json left open.
    @Test func theTerminalsBackgroundPicksTheTheme() throws {
        var d = KeyDecoder()
        let keys = d.decode(Array("\u{1B}]11;rgb:ffff/ffff/f0f0\u{1B}\\x\u{1B}]11;rgb:00/10/20\u{7}".unicodeScalars.map { .char($0.value) }))
        #expect(keys == [.reply(.background(red: 255, green: 255, blue: 240)), .char("x"), .reply(.background(red: 0, green: 16, blue: 32))])
        #expect(d.decode([.char(0x1B), .char(0x5D), .timeout]) == [.alt("]")], "Alt-] alone is still a key")
        var config = ClientConfig()
        #expect(config.backgroundQuery == "\u{1B}]11;?\u{1B}\\")
        config.overrides[.prompt] = Style(fg: .red)
        config.adopt(background: 250, 250, 250)
        #expect(config.palette[.dim] == ThemePalette.light[.dim] && config.palette[.prompt] == Style(fg: .red))
        config.adopt(background: 20, 20, 30)
        #expect(config.palette[.dim] == ThemePalette.dark[.dim])
        config.themeNamed = true
        #expect(config.backgroundQuery == nil)
        config.adopt(background: 255, 255, 255)
        #expect(config.palette[.dim] == ThemePalette.dark[.dim], "a theme config.json named stays")
    }

    @Test func noColorWinsOverATheme() {
        let g = Screen.render(Self.chat(), Self.zh, RenderOptions(monochrome: true, palette: .named(.highContrast)))
        for y in 0..<g.height {
            for x in 0..<g.width where !g[x, y].isContinuation {
                #expect(g[x, y].style.fg == .default && g[x, y].style.bg == .default)
            }
        }
    }
}

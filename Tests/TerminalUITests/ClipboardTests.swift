import Foundation
import Testing
@testable import TerminalUI

@Suite struct ClipboardTests {
    @Test func aClipboardProgramWhereTheDisplayHasOneElseOSC52() {
        let all: (String) -> String? = { "/usr/bin/" + $0 }
        let none: (String) -> String? = { _ in nil }
        #expect(Clipboard.choose(environment: ["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"], which: all)
                == .program(path: "/usr/bin/wl-copy", arguments: []))
        #expect(Clipboard.choose(environment: ["DISPLAY": ":0"], which: all)
                == .program(path: "/usr/bin/xclip", arguments: ["-selection", "clipboard"]))
        #expect(Clipboard.choose(environment: ["DISPLAY": ":0", "TMUX": "/tmp/t,1,0"], which: none) == .osc52(insideTmux: true))
        #expect(Clipboard.choose(environment: [:], which: all) == .osc52(insideTmux: false), "no display: the terminal's own")
    }

    @Test func osc52CarriesTheTextAsBase64AndGoesThroughTmux() throws {
        let text = "复制 me \u{1B}[31m"
        let plain = try #require(Clipboard.osc52(text, insideTmux: false))
        #expect(plain == "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}")
        #expect(!plain.dropFirst().contains("\u{1B}"), "the text's own escapes are inside the base64")
        let wrapped = try #require(Clipboard.osc52(text, insideTmux: true))
        #expect(wrapped.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}]52;c;") && wrapped.hasSuffix(plain))
        #expect(Clipboard.osc52(String(repeating: "a", count: Clipboard.osc52Limit + 1), insideTmux: false) == nil)
    }

    @Test func aProgramGetsTheTextOnItsInput() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("clip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(Clipboard.run(path: "/usr/bin/tee", arguments: [out.path], text: "你好，剪贴板"))
        #expect(try String(contentsOf: out, encoding: .utf8) == "你好，剪贴板")
        #expect(!Clipboard.run(path: "/nonexistent/wl-copy", arguments: [], text: "x"))
        #expect(!Clipboard.run(path: "/usr/bin/false", arguments: [], text: "x"))
    }
}

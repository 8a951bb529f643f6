import Foundation
import Testing
@testable import TerminalUI

@Suite struct DesktopNotificationTests {
    @Test func shortensChineseOnCharacters() {
        let n = DesktopNotification(title: String(repeating: "标", count: 61), body: String(repeating: "消", count: 200))
        #expect(n.body.count == 120)
        #expect(n.body == String(repeating: "消", count: 119) + "…")
        #expect(n.title == String(repeating: "标", count: 59) + "…")
        let exact = DesktopNotification(title: String(repeating: "标", count: 60), body: String(repeating: "消", count: 120))
        #expect(exact.title == String(repeating: "标", count: 60))
        #expect(exact.body == String(repeating: "消", count: 120))
    }

    @Test func neverSplitsFlagsOrFamilies() {
        let flags = DesktopNotification(title: String(repeating: "🇨🇳", count: 70), body: "")
        #expect(flags.title == String(repeating: "🇨🇳", count: 59) + "…")
        #expect(flags.title.unicodeScalars.count == 59 * 2 + 1)
        let family = "👨‍👩‍👧"
        let families = DesktopNotification(title: "", body: String(repeating: family, count: 130))
        #expect(families.body.count == 120)
        #expect(families.body.unicodeScalars.count == 119 * 5 + 1)
        #expect(families.body.dropLast().allSatisfy { $0 == Character(family) })
        // The family is the 59th Character: kept whole, the cut falls after it.
        let edge = DesktopNotification(title: String(repeating: "a", count: 58) + family + "bb", body: "")
        #expect(edge.title == String(repeating: "a", count: 58) + family + "…")
        #expect(edge.title.unicodeScalars.count == 58 + 5 + 1)
    }

    @Test func cutDropsTrailingSpace() {
        let n = DesktopNotification(title: String(repeating: "a", count: 58) + " " + String(repeating: "b", count: 10), body: "")
        #expect(n.title == String(repeating: "a", count: 58) + "…")
    }

    @Test func controlCharactersBecomeOneSpace() {
        let n = DesktopNotification(title: "\n\tAlice\r\n", body: "Hello\n\n\tworld\r\n")
        #expect(n.title == "Alice")
        #expect(n.body == "Hello world")
        #expect(DesktopNotification(title: "a\u{1B}[31mb", body: "").title == "a [31mb")
        #expect(DesktopNotification(title: "", body: "one\u{2028}two\u{2029}three\u{85}four").body == "one two three four")
        // Invisible format characters (bidi override, zero-width space) go without a gap.
        #expect(DesktopNotification(title: "a\u{202E}b\u{200B}c", body: "").title == "abc")
        #expect(DesktopNotification(title: "a  \n  b", body: "").title == "a b")
    }

    @Test func noForbiddenScalarSurvives() {
        var text = String.UnicodeScalarView()
        for value in Array(0x00...0x9F) + [0x2028, 0x2029, 0x202E, 0xFEFF] {
            text.append(Unicode.Scalar(UInt32(value))!)
            text.append("x")
        }
        let n = DesktopNotification(title: String(text), body: String(text))
        for s in [n.title, n.body] {
            for scalar in s.unicodeScalars {
                #expect(scalar.value >= 0x20 && scalar.value != 0x7F && !(0x80...0x9F).contains(scalar.value))
                #expect(scalar.value != 0x2028 && scalar.value != 0x2029)
            }
        }
        #expect(!n.title.unicodeScalars.contains("\u{1B}"))
    }

    @Test func cleaningTwiceChangesNothing() {
        let n = DesktopNotification(title: String(repeating: "🇨🇳", count: 70), body: "a\nb " + String(repeating: "消", count: 200))
        #expect(DesktopNotification(title: n.title, body: n.body) == n)
    }
}

@Suite struct NotifyMethodTests {
    private func choose(_ env: [String: String], notifySend: Bool = true) -> NotifyMethod {
        NotifyMethod.choose(environment: env) { notifySend && $0 == "notify-send" }
    }

    @Test func rawValues() {
        #expect(NotifyMethod.notifySend.rawValue == "notify-send")
        #expect(NotifyMethod.allCases.count == 5)
    }

    @Test func userSettingsComeFirst() {
        let kitty = ["TERM": "xterm-kitty"]
        #expect(choose(kitty.merging(["TONGBAN_NO_NOTIFY": "", "TONGBAN_NOTIFY": "osc9"]) { a, _ in a }) == .off)
        #expect(choose(["TONGBAN_NO_NOTIFY": "1", "DISPLAY": ":0"]) == .off)
        #expect(choose(kitty.merging(["TONGBAN_NOTIFY": "osc9"]) { a, _ in a }) == .osc9)
        #expect(choose(kitty.merging(["TONGBAN_NOTIFY": "bogus"]) { a, _ in a }) == .osc99)
        #expect(choose(["TONGBAN_NOTIFY": "notify-send"], notifySend: false) == .notifySend)
        #expect(choose(["TONGBAN_NOTIFY": "off", "TERM": "xterm-kitty"]) == .off)
        #expect(choose(["TONGBAN_NOTIFY": "OSC777"]) == .osc777)
    }

    @Test func detectsTerminals() {
        #expect(choose(["TERM": "xterm-kitty"]) == .osc99)
        #expect(choose(["TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "KITTY_WINDOW_ID": "1"]) == .osc99)
        #expect(choose(["KITTY_WINDOW_ID": "1", "VTE_VERSION": "7600", "DISPLAY": ":0"]) == .osc99)
        #expect(choose(["TERM_PROGRAM": "iTerm.app"]) == .osc9)
        #expect(choose(["TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"]) == .osc9)
        #expect(choose(["TERM_PROGRAM": "ghostty"]) == .osc9)
        #expect(choose(["TERM": "xterm-ghostty"]) == .osc9)
        #expect(choose(["TERM_PROGRAM": "WezTerm"]) == .osc777)
        #expect(choose(["TERM_PROGRAM": "tmux", "WEZTERM_PANE": "0"]) == .osc777)
        #expect(choose(["TERM": "foot"]) == .osc777)
        #expect(choose(["TERM": "foot-extra"]) == .osc777)
        #expect(choose(["TERM": "xterm-256color", "VTE_VERSION": "7600", "DISPLAY": ":0"]) == .osc777)
        #expect(choose(["TERM": "xterm-256color", "KONSOLE_VERSION": "230805"]) == .osc777)
        #expect(choose(["TERM": "xterm-256color", "KITTY_WINDOW_ID": ""]) == .off)
    }

    @Test func notifySendNeedsADesktopAndTheProgram() {
        #expect(choose(["TERM": "xterm-256color", "DISPLAY": ":0"]) == .notifySend)
        #expect(choose(["TERM": "xterm-256color", "WAYLAND_DISPLAY": "wayland-0"]) == .notifySend)
        #expect(choose(["TERM": "xterm-256color", "DISPLAY": ":0"], notifySend: false) == .off)
        #expect(choose(["TERM": "xterm-256color"]) == .off)
        #expect(choose(["TERM": "xterm-256color", "DISPLAY": "", "WAYLAND_DISPLAY": ""]) == .off)
        #expect(choose([:]) == .off)
    }
}

@Suite struct DesktopNotifierTests {
    private let plain = DesktopNotification(title: "Alice", body: "hello")

    private func escapes(_ s: String) -> Int { s.unicodeScalars.filter { $0 == "\u{1B}" }.count }

    @Test func osc777ReplacesSemicolons() {
        let n = DesktopNotification(title: "Alice; Bob", body: "hi; there;")
        #expect(DesktopNotifier.escapeSequence(for: n, method: .osc777, insideTmux: false)
            == "\u{1B}]777;notify;Alice, Bob;hi, there,\u{1B}\\")
        // A `;` joined with a combining mark into one Character is still replaced.
        let joined = DesktopNotification(title: "a", body: ";\u{301}x")
        let seq = DesktopNotifier.escapeSequence(for: joined, method: .osc777, insideTmux: false) ?? ""
        #expect(seq.unicodeScalars.filter { $0 == ";" }.count == 3)
        #expect(seq.unicodeScalars.elementsEqual("\u{1B}]777;notify;a;,\u{301}x\u{1B}\\".unicodeScalars))
    }

    @Test func osc9() {
        #expect(DesktopNotifier.escapeSequence(for: plain, method: .osc9, insideTmux: false) == "\u{1B}]9;Alice: hello\u{07}")
        let noTitle = DesktopNotification(title: "", body: "hi")
        #expect(DesktopNotifier.escapeSequence(for: noTitle, method: .osc9, insideTmux: false) == "\u{1B}]9;hi\u{07}")
    }

    @Test func osc9NeverStartsWithADigit() {
        let digitTitle = DesktopNotification(title: "42", body: "x")
        #expect(DesktopNotifier.escapeSequence(for: digitTitle, method: .osc9, insideTmux: false)
            == "\u{1B}]9;Tongban: 42: x\u{07}")
        let progress = DesktopNotification(title: "", body: "4;1;50")
        #expect(DesktopNotifier.escapeSequence(for: progress, method: .osc9, insideTmux: false)
            == "\u{1B}]9;Tongban: 4;1;50\u{07}")
        let zero = DesktopNotification(title: "0 unread", body: "")
        #expect(DesktopNotifier.escapeSequence(for: zero, method: .osc9, insideTmux: false) == "\u{1B}]9;Tongban: 0 unread\u{07}")
    }

    @Test func osc99SendsTitleThenBody() {
        #expect(DesktopNotifier.escapeSequence(for: plain, method: .osc99, insideTmux: false)
            == "\u{1B}]99;i=tongban:d=0;Alice\u{1B}\\\u{1B}]99;i=tongban:d=1:p=body;hello\u{1B}\\")
    }

    @Test func noSequenceForNotifySendOrOff() {
        #expect(DesktopNotifier.escapeSequence(for: plain, method: .notifySend, insideTmux: false) == nil)
        #expect(DesktopNotifier.escapeSequence(for: plain, method: .off, insideTmux: true) == nil)
    }

    @Test func tmuxWrapsEverythingOnceWithEscDoubled() {
        #expect(DesktopNotifier.escapeSequence(for: plain, method: .osc9, insideTmux: true)
            == "\u{1B}Ptmux;\u{1B}\u{1B}]9;Alice: hello\u{07}\u{1B}\\")
        #expect(DesktopNotifier.escapeSequence(for: plain, method: .osc99, insideTmux: true)
            == "\u{1B}Ptmux;\u{1B}\u{1B}]99;i=tongban:d=0;Alice\u{1B}\u{1B}\\"
            + "\u{1B}\u{1B}]99;i=tongban:d=1:p=body;hello\u{1B}\u{1B}\\\u{1B}\\")
        for method in [NotifyMethod.osc777, .osc9, .osc99] {
            let bare = DesktopNotifier.escapeSequence(for: plain, method: method, insideTmux: false) ?? ""
            let wrapped = DesktopNotifier.escapeSequence(for: plain, method: method, insideTmux: true) ?? ""
            #expect(wrapped.hasPrefix("\u{1B}Ptmux;"))
            #expect(wrapped.hasSuffix("\u{1B}\\"))
            #expect(escapes(wrapped) == escapes(bare) * 2 + 2)
            let inner = wrapped.unicodeScalars.dropFirst(7).dropLast(2)
            #expect(String(String.UnicodeScalarView(inner)) == bare.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}"))
        }
    }

    @Test func textSetAfterInitCannotEndTheSequence() {
        var n = DesktopNotification(title: "x", body: "b")
        n.title = "evil\u{1B}\\\u{07}x"
        let seq = DesktopNotifier.escapeSequence(for: n, method: .osc9, insideTmux: false)
        #expect(seq == "\u{1B}]9;evil \\ x: b\u{07}")
        #expect(escapes(seq ?? "") == 1)
    }

    @Test func notifySendArgumentsEndOptions() {
        let n = DesktopNotification(title: "-rf --help", body: "line\none")
        #expect(DesktopNotifier.notifySendArguments(for: n) == ["--app-name=Tongban", "--", "-rf --help", "line one"])
    }

    /// notify-send's body is markup to the notification daemon: a message
    /// shows as typed, never as bold text or a link; `&` is escaped first,
    /// so an entity typed in a message is not read as one either.
    @Test func notifySendEscapesMarkupInTheBody() {
        let n = DesktopNotification(title: "<b>Alice</b> & Bob", body: "<a href=\"http://x.test\">点我</a> & 1 < 2 > 0 &amp;")
        let arguments = DesktopNotifier.notifySendArguments(for: n)
        #expect(arguments == ["--app-name=Tongban", "--", "<b>Alice</b> & Bob",
                              "&lt;a href=\"http://x.test\"&gt;点我&lt;/a&gt; &amp; 1 &lt; 2 &gt; 0 &amp;amp;"])
        let body = arguments.last ?? ""
        #expect(!body.contains("<") && !body.contains(">"), "no tag survives")
        #expect(DesktopNotifier.notifySendArguments(for: DesktopNotification(title: "t", body: "你好 👋")).last == "你好 👋")
    }

    @Test func escapingMarkupIsTheBodysOnlyChange() {
        #expect(DesktopNotifier.escapingMarkup("&&<<>>") == "&amp;&amp;&lt;&lt;&gt;&gt;")
        #expect(DesktopNotifier.escapingMarkup("&lt;") == "&amp;lt;", "an entity typed is shown, not read")
        // The escapes never reach the terminal sequences, which are no markup.
        let n = DesktopNotification(title: "A", body: "1 < 2 & 3")
        #expect(DesktopNotifier.escapeSequence(for: n, method: .osc9, insideTmux: false) == "\u{1B}]9;A: 1 < 2 & 3\u{07}")
    }

    @Test func findsOnlyExecutableRegularFiles() throws {
        let files = FileManager.default
        let dir = files.temporaryDirectory.appendingPathComponent("tongban-notify-\(UUID().uuidString)").path
        try files.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? files.removeItem(atPath: dir) }
        #expect(files.createFile(atPath: dir + "/tool", contents: Data("#!/bin/sh\n".utf8)))
        #expect(files.createFile(atPath: dir + "/data", contents: Data("x".utf8)))
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir + "/tool")
        try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/data")
        try files.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: false,
                                  attributes: [.posixPermissions: 0o755])
        try files.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/tool")

        let path = "/nonexistent-tongban-dir::\(dir)"
        #expect(DesktopNotifier.findExecutable("tool", path: path) == dir + "/tool")
        #expect(DesktopNotifier.findExecutable("tool", path: dir + "/") == dir + "/tool")
        #expect(DesktopNotifier.findExecutable("link", path: path) == dir + "/link")
        #expect(DesktopNotifier.findExecutable("data", path: path) == nil)
        #expect(DesktopNotifier.findExecutable("folder", path: path) == nil)
        #expect(DesktopNotifier.findExecutable("missing", path: path) == nil)
        #expect(DesktopNotifier.findExecutable(dir + "/tool", path: path) == nil)
        #expect(DesktopNotifier.findExecutable("tool", path: nil) == nil)
        #expect(DesktopNotifier.findExecutable("", path: path) == nil)
    }
}

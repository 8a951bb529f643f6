import Foundation
import Testing
@testable import TerminalUI

/// Where the full-screen client cannot draw, it says why instead of drawing into a pipe.
@Suite struct TerminalCheckTests {
    static func check(_ env: [String: String], stdin: Bool = true, stdout: Bool = true) -> TerminalCheck.Problem? {
        TerminalCheck.problem(environment: env, stdinIsTerminal: stdin, stdoutIsTerminal: stdout) { $0 == "xterm-256color" }
    }

    @Test func aPipeAnUnsetOrDumbTermAndAnUnknownTermAreRefused() {
        #expect(Self.check(["TERM": "xterm-256color"]) == nil)
        #expect(Self.check(["TERM": "xterm-256color"], stdout: false) == .notATerminal)
        #expect(Self.check(["TERM": "xterm-256color"], stdin: false) == .notATerminal)
        #expect(Self.check([:]) == .noTerm)
        #expect(Self.check(["TERM": ""]) == .noTerm)
        #expect(Self.check(["TERM": "dumb"]) == .dumb)
        #expect(Self.check(["TERM": "vt-nonesuch"]) == .unknown("vt-nonesuch"))
    }

    @Test func terminfoIsFoundWhereNcursesLooks() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("terminfo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("m"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent("m/mine-term"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("6e"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent("6e/newer-term"))
        let env = ["TERMINFO": dir.path]
        #expect(TerminalCheck.terminfoExists("mine-term", environment: env))
        #expect(TerminalCheck.terminfoExists("newer-term", environment: env), "macOS-style hex folders too")
        #expect(!TerminalCheck.terminfoExists("missing-term", environment: env))
        #expect(!TerminalCheck.terminfoExists("../m/mine-term", environment: env), "a TERM is a name, not a path")
    }
}

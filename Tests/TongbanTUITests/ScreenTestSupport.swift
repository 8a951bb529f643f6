import ChatCore
import ChatMedia
import ChatServer
import ChatStore
import ChatSync
import ChatTesting
import Foundation
import Logging
import TerminalUI
import Testing
@testable import TongbanTUI

// What the screen tests share: a demo server and session, typing, waiting for text.

func tmpDir(_ n: String) -> URL { TestFolders.make("tongban-tui-\(n)") }
/// A file's URL (`n.ext`) in a folder of its own, removed with the others.
func tmpFile(_ n: String, _ ext: String) -> URL {
    TestFolders.folder("tongban-tui-\(n)").appendingPathComponent("\(n).\(ext)")
}

/// The demo server in-process and `me` logged in, as `make run` does. A
/// test that stops the server passes `port` so it stays refused afterwards.
func demoSession(port: ReservedPort? = nil) async throws -> (RunningServer, Session) {
    var c = ServerConfig()
    c.port = port?.port ?? 0
    c.demo = true
    c.demoReplyDelay = .milliseconds(50)
    c.dataDir = tmpDir("srv").path
    var l = Logger(label: "tui-test")
    l.logLevel = .critical
    c.logger = l
    let server = try await ChatServerApp.start(config: c)
    let root = tmpDir("me")
    let paths = StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                           configDirectory: root.appendingPathComponent("k"))
    let creds = try await Session.login(server: server.baseURL, account: "me", password: "tongban-demo", paths: paths)
    return (server, try Session(credentials: creds, paths: paths))
}

@MainActor
func app(_ session: Session) async -> ChatApp {
    let app = ChatApp(session: session, localizer: Localizer(language: .zhHans))
    await app.start()
    return app
}

@MainActor
func type(_ app: ChatApp, _ text: String) async {
    for c in text { await app.handle(.char(c)) }
}

@MainActor
func waitFor(_ app: ChatApp, width: Int = 120, height: Int = 40, _ text: String) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if app.frame(width: width, height: height).find(text) != nil { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return recordScreen(app, width: width, height: height, "\(text.debugDescription) never showed")
}

/// Waits until no cell of the screen shows `text` (5 s at most).
@MainActor
func waitForGone(_ app: ChatApp, width: Int = 120, height: Int = 40, _ text: String) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if app.frame(width: width, height: height).find(text) == nil { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return recordScreen(app, width: width, height: height, "\(text.debugDescription) never went")
}

/// Records the whole screen with `why`; false.
@MainActor
func recordScreen(_ app: ChatApp, width: Int, height: Int, _ why: String) -> Bool {
    // The screen it gave up on says more than "false" does.
    let frame = app.frame(width: width, height: height)
    let rows = (0..<height).map { frame.rowText($0) }.joined(separator: "\n")
    Issue.record("\(why); the screen was:\n\(rows)")
    return false
}

actor Counter {
    private(set) var value = 0
    func next() -> Int { value += 1; return value }
}

/// Holds decoders back until the test lets them go.
actor AsyncGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        for w in waiters { w.resume() }
        waiters = []
    }
}

enum MediaKeyName {
    static func of(_ key: String) -> String { key.replacingOccurrences(of: "/", with: "_") }
}

/// Checks `condition` after each turn of the main actor until it holds (5 s at most).
@MainActor
func until(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

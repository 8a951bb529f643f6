import ChatCore
import ChatServer
@testable import ChatStore
@testable import ChatSync
import Foundation
import Logging
import Synchronization
import ChatTesting
import Testing
@testable import TongbanTUI

/// A scripted terminal: lines and passwords to hand out, and what was shown.
final class ScriptedTerminal: Sendable {
    private let state: Mutex<(lines: [String], secrets: [String], shown: String, secretPrompts: Int)>

    init(lines: [String], secrets: [String]) { state = Mutex((lines, secrets, "", 0)) }

    var shown: String { state.withLock { $0.shown } }
    var secretPrompts: Int { state.withLock { $0.secretPrompts } }

    var io: SignInForm.IO {
        SignInForm.IO(
            readLine: { self.state.withLock { $0.lines.isEmpty ? nil : $0.lines.removeFirst() } },
            readSecret: { prompt in
                self.state.withLock { s in
                    s.shown += prompt
                    s.secretPrompts += 1
                    return s.secrets.isEmpty ? nil : s.secrets.removeFirst()
                }
            },
            write: { text in self.state.withLock { $0.shown += text } })
    }
}

@Suite(.serialized) struct SignInFormTests {
    static func server() async throws -> RunningServer {
        var c = ServerConfig()
        c.port = 0
        c.dataDir = tmpDir("signin-srv").path
        c.passwordRounds = 100_000
        var l = Logger(label: "signin-test")
        l.logLevel = .critical
        c.logger = l
        return try await ChatServerApp.start(config: c)
    }

    static func paths() -> StorePaths {
        let root = tmpDir("signin")
        return StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                          configDirectory: root.appendingPathComponent("k"))
    }

    /// A newcomer mistypes the account, then the password, then gets in; each
    /// refusal says why in their language, and the password is never echoed.
    @Test func registersAfterClearRefusals() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        let paths = Self.paths()
        let term = ScriptedTerminal(
            lines: ["2", "Bad Name", "", "2", "newbie", "新人", "2", "newbie", "新人", "2", "newbie", "新人"],
            secrets: ["password-1", "password-1", "short", "short", "password-1", "password-2", "secret-pass", "secret-pass"])
        let l = Localizer(language: .zhHans)
        let creds = await SignInForm(server: server.baseURL, paths: paths, localizer: l, io: term.io).run()
        #expect(creds?.account == "newbie")
        #expect(creds?.username == "新人")
        let shown = term.shown
        #expect(shown.contains(l.string("signup.badAccount")))
        #expect(shown.contains(l.string("signup.shortPassword")))
        #expect(shown.contains(l.string("signup.mismatch")))
        #expect(shown.contains("已创建账号 newbie"))
        #expect(!shown.contains("secret-pass") && !shown.contains("password-1"))
        // The login is kept for the next start, readable by the user only.
        #expect(try Session.saved(paths: paths)?.uid == creds?.uid)
        let mode = try FileManager.default.attributesOfItem(
            atPath: paths.dataDirectory.appendingPathComponent("session.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Someone else picks the same name: told it is taken; then logs in with a wrong and a right password.
        let other = ScriptedTerminal(lines: ["2", "newbie", "", "1", "newbie", "", "newbie"],
                                     secrets: ["another-pass", "another-pass", "wrong-pass", "secret-pass"])
        let again = await SignInForm(server: server.baseURL, paths: Self.paths(), localizer: l, io: other.io).run()
        #expect(other.shown.contains(l.string("signup.taken", ["account": "newbie"])))
        #expect(other.shown.contains(l.string("signin.wrong")))
        #expect(again?.uid == creds?.uid)
    }

    /// Seed 001 §5: an empty account or password is refused by the form
    /// itself, with the seed's words, and asked again. Input ends before
    /// the password is given: nothing may have gone to the server.
    @Test func emptyFieldsAreRefusedBeforeAnyRequest() async throws {
        let term = ScriptedTerminal(lines: ["1", "", "  ", "someone"], secrets: [""])
        let l = Localizer(language: .zhHans)
        let dead = try ReservedPort()
        let creds = await SignInForm(server: dead.url, paths: Self.paths(), localizer: l, io: term.io).run()
        #expect(creds == nil)
        let shown = term.shown
        #expect(shown.components(separatedBy: "账号不能为空").count - 1 == 2, "an empty and a blank account")
        #expect(shown.components(separatedBy: "密码不能为空").count - 1 == 1)
        #expect(term.secretPrompts == 2, "the password is asked again")
        #expect(!shown.contains("无法连接"), "no request went out")
        #expect(shown.contains(l.string("signin.gaveUp")))
    }

    @Test func unreachableServerAndEndOfInput() async throws {
        let dead = try ReservedPort()
        let url = dead.url
        let term = ScriptedTerminal(lines: ["1", "someone"], secrets: ["password-1"])
        let l = Localizer(language: .en)
        let creds = await SignInForm(server: url, paths: Self.paths(), localizer: l, io: term.io).run()
        #expect(creds == nil)
        #expect(term.shown.contains("Cannot reach \(url)"))
        #expect(term.shown.contains(l.string("signin.gaveUp")))
    }
}

@Suite(.serialized) struct DiskFullScreenTests {
    /// The status line says the disk is full until a pull fits again, and a
    /// message that could not be stored stays in the input bar.
    @MainActor @Test func statusLineAndInputKeepTheText() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        app.syncUpdate(.storage(full: true))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("⚠ 磁盘已满：新消息暂留在服务器上"))
        await app.handle(.enter)  // open the first chat
        // A full disk: the store capped where it stands, its free room taken.
        try await session.store.dbPool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA max_page_count = \((try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1) + 4)")
            try db.execute(sql: "CREATE TABLE filler(x BLOB)")
            for size in [4096, 64, 1] {
                while (try? db.execute(sql: "INSERT INTO filler VALUES (randomblob(?))", arguments: [size])) != nil {}
            }
        }
        // Longer than a page, so storing it needs a page the disk does not have.
        let long = "留在输入框里的话" + String(repeating: "话", count: 1_500)
        await app.handle(.paste(long))
        await app.handle(.enter)
        #expect(app.input.text == long, "the text is still in the input bar")
        let frame = app.frame(width: 120, height: 40)
        #expect(frame.text().contains("磁盘已满：消息未保存也未发送"))
        app.syncUpdate(.storage(full: false))
        #expect(!app.frame(width: 120, height: 40).text().contains("⚠ 磁盘已满"))
    }
}

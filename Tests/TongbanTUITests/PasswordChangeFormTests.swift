import ChatCore
import ChatServer
import ChatSync
import ChatTesting
import Foundation
import Logging
import Testing
@testable import TongbanTUI

/// `tongban password` (v4): asked without echo on a terminal, two lines
/// from a pipe; each outcome in the user's words.
@Suite struct PasswordChangeFormTests {
    static let zh = Localizer(language: .zhHans)
    static let en = Localizer(language: .en)

    func form(_ fake: FakeChatAPI, _ term: ScriptedTerminal, interactive: Bool, _ l: Localizer = zh) throws -> PasswordChangeForm {
        PasswordChangeForm(session: try fake.makeSession(), localizer: l, io: term.io, interactive: interactive)
    }

    @Test func onATerminalItAsksThreeTimesWithoutEcho() async throws {
        let fake = try FakeChatAPI(account: "pwf_tty")
        // Another device, which the change signs out.
        _ = try await fake.api.login(account: "pwf_tty", password: "password-pwf_tty")
        let term = ScriptedTerminal(lines: [], secrets: ["password-pwf_tty", "a-new-password", "a-new-password"])
        #expect(try await form(fake, term, interactive: true).run() == .changed("密码已修改，其他设备已退出登录"))
        #expect(term.secretPrompts == 3, "every answer read without echo")
        #expect(term.shown == "当前密码（不显示）：新密码（不显示）：再次输入新密码：")
        #expect(!term.shown.contains("a-new-password"))
        #expect(try await fake.api.sessions().count == 1, "the other device is signed out")
        _ = try await fake.api.login(account: "pwf_tty", password: "a-new-password")
    }

    @Test func fromAPipeItReadsTheCurrentThenTheNewPassword() async throws {
        let fake = try FakeChatAPI(account: "pwf_pipe")
        let term = ScriptedTerminal(lines: ["password-pwf_pipe", "piped-new-password"], secrets: [])
        #expect(try await form(fake, term, interactive: false, Self.en).run()
            == .changed("Password changed; your other devices were signed out"))
        #expect(term.secretPrompts == 0 && term.shown.isEmpty, "a script sees nothing but the outcome")
        _ = try await fake.api.login(account: "pwf_pipe", password: "piped-new-password")
    }

    @Test func whatIsNotSentSaysWhy() async throws {
        let fake = try FakeChatAPI(account: "pwf_no")
        let oneLine = ScriptedTerminal(lines: ["password-pwf_no"], secrets: [])
        #expect(try await form(fake, oneLine, interactive: false).run() == .failed("标准输入须有两行：当前密码，然后新密码"))
        let differ = ScriptedTerminal(lines: [], secrets: ["password-pwf_no", "a-new-password", "another-password"])
        #expect(try await form(fake, differ, interactive: true).run() == .failed("两次输入的密码不一致，未提交。"))
        let short = ScriptedTerminal(lines: ["password-pwf_no", "short"], secrets: [])
        #expect(try await form(fake, short, interactive: false).run() == .failed("修改密码失败：密码至少 8 个字符。"))
        let ended = ScriptedTerminal(lines: [], secrets: [])
        #expect(try await form(fake, ended, interactive: true).run() == .failed("密码不能为空"))
        #expect(fake.calls(.changePassword) == 0, "none of these reached the server")
    }

    @Test func aWrongCurrentPasswordIsSaidAsSuch() async throws {
        let fake = try FakeChatAPI(account: "pwf_wrong")
        let term = ScriptedTerminal(lines: ["not-my-password", "a-new-password"], secrets: [])
        #expect(try await form(fake, term, interactive: false).run() == .failed("修改密码失败：当前密码不正确"))
        let english = ScriptedTerminal(lines: ["not-my-password", "a-new-password"], secrets: [])
        #expect(try await form(fake, english, interactive: false, Self.en).run()
            == .failed("Could not change the password: the current password is wrong"))
    }

    @Test func aRateLimitSaysHowLongToWait() async throws {
        let fake = try FakeChatAPI(account: "pwf_slow")
        fake.failNext(.changePassword, with: .server(status: 429, code: .rateLimited, rawCode: "rate_limited", message: "slow down",
                                                     retryAfter: 42))
        let term = ScriptedTerminal(lines: ["password-pwf_slow", "a-new-password"], secrets: [])
        #expect(try await form(fake, term, interactive: false).run() == .failed("修改密码失败：操作太频繁，请 42 秒后再试"))
    }
}

extension SignInFormTests {
    /// Too many failed sign-ins from one address: the server's 429 reads as
    /// a wait, not as a wrong password or its English.
    @Test func tooManyFailedSignInsSayToWait() async throws {
        var c = ServerConfig()
        c.port = 0
        c.dataDir = tmpDir("signin-429").path
        c.passwordRounds = 100_000
        c.limits.failedLoginsPerAccount = 2
        var logger = Logger(label: "signin-429-test")
        logger.logLevel = .critical
        c.logger = logger
        let server = try await ChatServerApp.start(config: c)
        defer { Task { await server.stop() } }
        _ = try await APIClient(baseURL: server.baseURL).register(account: "slowpoke", password: "password-slowpoke")
        let term = ScriptedTerminal(lines: ["1", "slowpoke", "1", "slowpoke", "1", "slowpoke"],
                                    secrets: ["wrong-pass-1", "wrong-pass-2", "wrong-pass-3"])
        let form = SignInForm(server: server.baseURL, paths: Self.paths(), localizer: Localizer(language: .zhHans), io: term.io,
                              attempts: 3)
        #expect(await form.run() == nil)
        #expect(term.shown.components(separatedBy: "账号或密码错误。").count == 3, "two wrong passwords said as such")
        #expect(term.shown.range(of: #"尝试太频繁，请 \d+ 秒后再试。"#, options: .regularExpression) != nil, "then a wait, in seconds")
        #expect(!term.shown.contains("too many"), "never the server's English")
    }
}

import ChatCore
import ChatStore
import ChatSync
import Foundation

/// What `tongban start --server URL` shows before the full screen when it
/// has no login for that server: log in, or create an account (seed 001
/// §6), on plain lines so it works on any terminal; the password is read
/// without echo. Every refusal says why and asks again.
public struct SignInForm {
    public enum Mode: Sendable { case login, register }

    /// The terminal, injectable for tests. `readSecret` must not echo.
    public struct IO {
        public var readLine: () -> String?
        public var readSecret: (String) -> String?
        public var write: (String) -> Void

        public init(readLine: @escaping () -> String?, readSecret: @escaping (String) -> String?,
                    write: @escaping (String) -> Void) {
            self.readLine = readLine; self.readSecret = readSecret; self.write = write
        }

        /// Standard input and output; the password through getpass(3), which
        /// reads the controlling terminal with echo off.
        public static var terminal: IO { IO(
            readLine: { Swift.readLine(strippingNewline: true) },
            readSecret: { prompt in getpass(prompt).map { String(cString: $0) } },
            write: { text in FileHandle.standardOutput.write(Data(TerminalSanitizer.sanitize(text, keepNewlines: true).utf8)) }) }
    }

    let server: String
    let paths: StorePaths
    let localizer: Localizer
    let io: IO
    /// Refusals allowed before giving up.
    let attempts: Int

    public init(server: String, paths: StorePaths, localizer: Localizer, io: IO = .terminal, attempts: Int = 5) {
        self.server = server; self.paths = paths; self.localizer = localizer; self.io = io; self.attempts = attempts
    }

    /// The saved login, or nil when the user quit (end of input) or ran out of attempts.
    public func run() async -> Session.Credentials? {
        let l = localizer
        io.write(l.string("signin.title", ["server": server]) + "\n")
        for attempt in 1...attempts {
            guard let filled = ask() else { break }
            do {
                let creds: Session.Credentials
                switch filled.mode {
                case .login:
                    creds = try await Session.login(server: server, account: filled.account, password: filled.password, paths: paths)
                    io.write(l.string("cli.loggedIn", ["name": creds.username, "uid": String(creds.uid)]) + "\n")
                case .register:
                    creds = try await Session.register(server: server, account: filled.account, password: filled.password,
                                                       username: filled.name, paths: paths)
                    io.write(l.string("signup.registered", ["account": creds.account, "name": creds.username,
                                                            "uid": String(creds.uid)]) + "\n")
                }
                return creds
            } catch {
                io.write(describe(error) + "\n")
                if attempt < attempts { io.write(l.string("signin.tryAgain") + "\n") }
            }
        }
        io.write(l.string("signin.gaveUp") + "\n")
        return nil
    }

    struct Filled {
        var mode: Mode
        var account: String
        var name: String?
        var password: String
    }

    /// One pass through the form; nil at end of input.
    func ask() -> Filled? {
        let l = localizer
        io.write(l.string("signin.choice"))
        guard let choice = io.readLine()?.trimmingCharacters(in: .whitespaces) else { return nil }
        let mode: Mode = choice == "2" ? .register : .login
        // Seed 001 §5: an empty field is refused here, before any request.
        var account = ""
        while account.isEmpty {
            io.write(l.string("signin.account"))
            guard let typed = io.readLine()?.trimmingCharacters(in: .whitespaces) else { return nil }
            account = typed
            if account.isEmpty { io.write(l.string("signin.accountEmpty") + "\n") }
        }
        var name: String?
        if mode == .register {
            io.write(l.string("signin.name"))
            guard let n = io.readLine() else { return nil }
            name = n
        }
        var password = ""
        while password.isEmpty {
            guard let typed = io.readSecret(l.string("signin.password")) else { return nil }
            password = typed
            if password.isEmpty { io.write(l.string("signin.passwordEmpty") + "\n") }
        }
        if mode == .register {
            guard let again = io.readSecret(l.string("signin.passwordAgain")) else { return nil }
            if again != password {
                io.write(l.string("signup.mismatch") + "\n")
                return ask()
            }
        }
        return Filled(mode: mode, account: account, name: name, password: password)
    }

    func describe(_ error: any Error) -> String {
        AccountRules.describe(error, server: server, localizer: localizer)
    }
}

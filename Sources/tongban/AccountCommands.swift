import ArgumentParser
import ChatCore
import ChatStore
import ChatSync
import Foundation
import TongbanTUI

/// The password from standard input (`--password-stdin`), else $TONGBAN_PASSWORD.
func readPassword(fromStdin: Bool) throws -> String {
    if fromStdin { return readLine(strippingNewline: true) ?? "" }
    if let env = ProcessInfo.processInfo.environment["TONGBAN_PASSWORD"] { return env }
    throw CLIError("give the password on standard input with --password-stdin, or in $TONGBAN_PASSWORD")
}

/// After a login or a new account: the server's list and log into the store.
func firstSync(_ creds: Session.Credentials, paths: StorePaths) async throws {
    let session = try Session(credentials: creds, paths: paths)
    _ = try await online(session) { try await session.refreshConversations() }
    _ = try await syncNow(session)
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "Log in and keep the token (0600) in the data dir.")
    @OptionGroup var common: Common
    @Option(help: "Server URL, e.g. http://127.0.0.1:8080") var server = "http://127.0.0.1:8080"
    @Option(help: "Account name.") var account: String
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (else $TONGBAN_PASSWORD).")
    var passwordStdin = false

    func run() async throws {
        let password = try readPassword(fromStdin: passwordStdin)
        do {
            let creds = try await Session.login(server: server, account: account, password: password, paths: common.paths)
            out(L.string("cli.loggedIn", ["name": creds.username, "uid": String(creds.uid)]))
            try await firstSync(creds, paths: common.paths)
        } catch let e as APIError {
            throw CLIError(AccountRules.describe(e, server: server, localizer: L))
        }
    }
}

/// A new display name; peers' lists show it at their next sync.
struct Rename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Change your display name (1-64 characters).")
    @OptionGroup var common: Common
    @Argument(help: "The new display name.") var name: String

    func run() async throws {
        let session = try await common.session()
        do {
            let info = try await session.rename(to: name)
            out(L.string("cli.renamed", ["name": info.username]))
        } catch let e as APIError {
            throw CLIError(ServerWords.describe(e, L))
        }
    }
}

/// Seed 001 §6: a new account from the command line, logged in at once.
struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create an account on a server and log in (the token is kept 0600 in the data dir).")
    @OptionGroup var common: Common
    @Option(help: "Server URL, e.g. http://127.0.0.1:8080") var server = "http://127.0.0.1:8080"
    @Option(help: "Account name: 3-32 characters of a-z, 0-9 and _.") var account: String
    @Option(help: "Display name (default: the account).") var name: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password (8-128 characters) from standard input (else $TONGBAN_PASSWORD).")
    var passwordStdin = false

    func run() async throws {
        let password = try readPassword(fromStdin: passwordStdin)
        do {
            let creds = try await Session.register(server: server, account: account, password: password,
                                                   username: name, paths: common.paths)
            out(L.string("signup.registered", ["account": creds.account, "name": creds.username, "uid": String(creds.uid)]))
            try await firstSync(creds, paths: common.paths)
        } catch let e where e is AccountRules.Problem || e is APIError {
            throw CLIError(AccountRules.describe(e, server: server, localizer: L))
        }
    }
}

/// v4: a new password; the account's other devices are signed out, this
/// login stays.
struct Password: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Change your password (8-128 characters); your other devices are signed out.",
        discussion: "On a terminal the passwords are asked without echo, the new one twice. When standard input is not a terminal it must hold two lines: the current password, then the new one.")
    @OptionGroup var common: Common

    func run() async throws {
        let session = try await common.session()
        let form = PasswordChangeForm(session: session, localizer: L, interactive: isatty(STDIN_FILENO) == 1)
        switch await form.run() {
        case .changed(let words): out(words)
        case .failed(let words): throw CLIError(words)
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "End the session; local history stays.")
    @OptionGroup var common: Common
    func run() async throws {
        out(try await Session.logout(paths: common.paths) ? L.string("cli.loggedOut") : L.string("cli.notLoggedInShort"))
    }
}


import ArgumentParser
import ChatCore
import ChatServer
import ChatStore
import ChatSync
import Foundation
import Logging
import TerminalUI
import TongbanTUI

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "The full-screen client (the default command).")
    @OptionGroup var common: Common
    @Flag(help: "Start the demo server in this process on a free port and log in as me.") var demo = false
    @Option(help: "Use this server; without a saved login for it, asks to log in or create an account first.") var server: String?
    @Flag(name: .customLong("no-mouse"), help: "Leave the mouse to the terminal (as \"mouse\": false in config.json does).") var noMouse = false

    func run() async throws {
        // Where it cannot draw, one line says why and which commands do the job (exit 2).
        if let problem = TerminalCheck.here() {
            errOut(Self.words(problem))
            throw ExitCode(2)
        }
        if demo {
            try await runDemo()
            return
        }
        let paths = common.paths
        if let server, (try Session.saved(paths: paths))?.server != APIClient(baseURL: server).baseURL {
            // No login for this server yet: log in or create an account first.
            guard await SignInForm(server: server, paths: paths, localizer: L).run() != nil else {
                throw ExitCode.failure
            }
        }
        let credentials = try Common.savedLogin(paths)
        // ncurses sets up on its thread while the store opens.
        let firstTakeover = TUIRunner.beginTakeover(launchedAt: launchedAt)
        // Not `common.session()`: what `send --queue` left is sent by the
        // screen's own send queue after the first frame, not before it (a
        // server that never answered kept the screen blank for 15 s).
        var session: Session
        do {
            session = try Session(credentials: credentials, paths: paths)
        } catch {
            TUIRunner.giveBack(firstTakeover)
            throw error
        }
        // Seed 001 §3.4: a login the server ended (signed out from another
        // device) goes back to sign-in; the local history stays.
        var takeover: TUIRunner.Takeover? = firstTakeover
        while try await TUIRunner.run(session: session, takeover: takeover, localizer: L,
                                      pictureDecoder: DecodeImage.decoder, mouse: !noMouse) == .signedOut {
            takeover = nil
            let server = session.credentials.server
            try Session.forgetLogin(paths: paths)
            out(L.string("error.signedOut"))
            guard await SignInForm(server: server, paths: paths, localizer: L).run() != nil else {
                throw ExitCode.failure
            }
            session = try Session(credentials: try Common.savedLogin(paths), paths: paths)
        }
    }

    static func words(_ problem: TerminalCheck.Problem) -> String {
        let why: String
        switch problem {
        case .notATerminal: why = L.string("cli.noTerminal.pipe")
        case .noTerm: why = L.string("cli.noTerminal.unset")
        case .dumb: why = L.string("cli.noTerminal.dumb")
        case .unknown(let term): why = L.string("cli.noTerminal.unknown", ["term": TerminalSanitizer.oneLine(term)])
        }
        return L.string("cli.noTerminal", ["why": why])
    }

    /// `make run`: the demo server in-process, logged in as `me`, with its
    /// own data folders so a real login is never touched.
    func runDemo() async throws {
        let root = common.paths.dataDirectory.appendingPathComponent("demo", isDirectory: true)
        try StorePaths.makePrivateDirectory(root)
        var config = ServerConfig()
        config.port = 0
        config.demo = true
        config.dataDir = root.appendingPathComponent("server").path
        config.storageThreads = 2  // one user's requests
        var logger = Logger(label: "tongban-demo-server")
        logger.logLevel = .critical  // ncurses owns the screen
        config.logger = logger
        let server = try await ChatServerApp.start(config: config)
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("client"),
                               cacheDirectory: common.paths.cacheDirectory.appendingPathComponent("demo"),
                               configDirectory: common.paths.configDirectory)
        let creds = try await Session.login(server: server.baseURL, account: "me", password: "tongban-demo", paths: paths)
        let session = try Session(credentials: creds, paths: paths)
        try await TUIRunner.run(session: session, localizer: L, pictureDecoder: DecodeImage.decoder, mouse: !noMouse)
        await server.stop()
    }
}

extension Start {
    /// `tongban` and `tongban start` with the options people type, each at
    /// most once and its value the next word: read here, without the
    /// argument parser, whose reflection over the command's properties (and
    /// the runtime's first look-ups of the protocols it casts them to) came
    /// to about a sixth of the time to the first frame. Anything else (help,
    /// `--data-dir=…`, an option twice, a value that looks like an option, a
    /// mistake, a CA file that does not check out) returns nil and goes
    /// through the parser, whose words and checks it then gets.
    static func parseTypedForms(_ arguments: ArraySlice<String>) -> Start? {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var rest = arguments
        while let word = rest.popFirst() {
            switch word {
            case "--data-dir", "--ca-file", "--server":
                guard values[word] == nil, let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
                values[word] = value
            case "--demo", "--no-mouse":
                guard flags.insert(word).inserted else { return nil }
            default:
                return nil
            }
        }
        var common = Common()
        common.dataDir = values["--data-dir"]
        common.caFile = values["--ca-file"]
        guard (try? common.validate()) != nil else { return nil }
        var start = Start()
        start.common = common
        start.server = values["--server"]
        start.demo = flags.contains("--demo")
        start.noMouse = flags.contains("--no-mouse")
        return start
    }
}

import ArgumentParser
import ChatCore
import ChatMedia
import ChatServer
import ChatStore
import ChatSync
import CMalloc
import Foundation
import Logging
import Version

@main
struct Tongban: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tongban",
        abstract: "Tongban Terminal: chat from a terminal.",
        version: BuildInfo.versionLine,
        subcommands: [Start.self, Login.self, Register.self, Rename.self, Password.self, Logout.self, List.self, Send.self, History.self, Sync.self,
                      Outbox.self, Pin.self, Unpin.self, Mute.self, Unmute.self, GroupCommand.self, RoomCommand.self, SignalCommand.self, Delete.self, Revoke.self, React.self, Edit.self, Fav.self, Forward.self, Search.self, Friend.self, Block.self, Unblock.self, Blocks.self, Profile.self, Privacy.self, Sessions.self, SecretCommand.self, SafetyNumberCommand.self, Save.self, Export.self, Demo.self, DecodeImage.self],
        defaultSubcommand: Start.self)

    /// A closed pipe (`tongban ls | head`) must end the output, not the process.
    static func main() async {
        _ = launchedAt
        // glibc gives each thread that allocates while another holds the
        // lock an arena of its own, up to eight per core, and memory freed in
        // one is not reused by the others: a flood of 10,000 messages through
        // NIO's, the store's and the terminal's threads left 13 arenas holding
        // 8.9 MiB, with 6.6 MiB live at its peak. One arena, set before any
        // thread starts; the client's threads seldom allocate at once.
        // MALLOC_ARENA_MAX still decides when set.
        // (getenv: the first thing `main` does need not build the whole environment.)
        if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(M_ARENA_MAX, 1) }
        signal(SIGPIPE, SIG_IGN)
        // The language tables decode on the other core while the arguments
        // parse (every command's words come from them).
        DispatchQueue.global().async { _ = L }
        do {
            var command: any ParsableCommand
            if let start = parseStartAlone() { command = start } else { command = try parseAsRoot() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Error texts carry what a server said: sanitised like any output.
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if !text.isEmpty {
                let handle = code == .success ? FileHandle.standardOutput : FileHandle.standardError
                try? handle.write(contentsOf: Data((TerminalSanitizer.sanitize(text, keepNewlines: true) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }
}

extension Tongban {
    /// `tongban` and `tongban start …`, the full-screen client, parse with
    /// `start`'s own options only: the whole tree of forty commands is built
    /// and reflected over for nothing (about 0.7 ms of the start, and some of
    /// the client's resident memory: BENCHMARKS.md), and the forms people type
    /// without the parser at all (`Start.parseTypedForms`). Anything neither
    /// takes (help, a mistake) goes through the whole tree, whose words say it
    /// as before.
    static func parseStartAlone() -> (any ParsableCommand)? {
        var arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "start" { arguments = arguments.dropFirst() } else if !arguments.isEmpty { return nil }
        // Help is laid out from the tree that parsed first: it must be the whole one.
        let builtIn = ["-h", "--h", "help", "--generate-completion", "--experimental"]
        guard !arguments.contains(where: { a in builtIn.contains { a.hasPrefix($0) } }) else { return nil }
        return Start.parseTypedForms(arguments) ?? (try? Start.parseAsRoot(Array(arguments)))
    }
}

let L = Localizer.current
/// Process start, for the bench's exec-to-first-frame figure.
let launchedAt = DispatchTime.now().uptimeNanoseconds

/// Options every command shares.
struct Common: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Where the login and the message stores live (default: $TONGBAN_DATA_DIR, else $XDG_DATA_HOME/tongban).")
    var dataDir: String?

    @Option(name: .customLong("ca-file"), help: "A CA certificate (PEM) to trust for https:// and wss:// besides the system's store; a login keeps it for later runs (default: $TONGBAN_CA_FILE).")
    var caFile: String?

    var paths: StorePaths { StorePaths.resolve(explicitDataDir: dataDir, environment: ProcessInfo.processInfo.environment) }

    /// Every command's connections trust the CA file from here on.
    func validate() throws {
        guard let path = caFile ?? ProcessInfo.processInfo.environment["TONGBAN_CA_FILE"], !path.isEmpty else { return }
        do {
            ClientTLS.caFile = try ClientTLS.validated(path)
        } catch let problem as ClientTLS.Problem {
            throw ValidationError(L.string("cli.caFile." + problem.kind.rawValue, ["path": problem.path]))
        }
    }

    /// The saved login, or the error that says how to make one.
    static func savedLogin(_ paths: StorePaths) throws -> Session.Credentials {
        guard let credentials = try Session.saved(paths: paths) else { throw CLIError(L.string("cli.notLoggedIn")) }
        return credentials
    }

    /// The saved session; whatever an earlier `send --queue` left in the
    /// outbox is sent first (quietly: offline it simply stays queued).
    func session() async throws -> Session {
        let paths = paths
        let session = try Session(credentials: try Self.savedLogin(paths), paths: paths)
        // Not while another process (the full-screen client) is sending:
        // that one sends it, and `ls` must not wait for its upload.
        if !(try session.reader.outbox().isEmpty) { _ = await session.sendQueue.drain(ifIdle: true) }
        return session
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func out(_ s: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((TerminalSanitizer.sanitize(s, keepNewlines: true) + "\n").utf8))
}

/// A line on standard error, sanitised like `out`.
func errOut(_ s: String) {
    try? FileHandle.standardError.write(contentsOf: Data((TerminalSanitizer.sanitize(s, keepNewlines: true) + "\n").utf8))
}

/// Message text in `history`: its own line breaks are kept, indented, so a
/// message cannot forge a `[time] name:` row of its own.
func indentedBody(_ s: String) -> String {
    TerminalSanitizer.sanitize(s, keepNewlines: true).replacingOccurrences(of: "\n", with: "\n    ")
}

/// `--json` output: pretty, keys sorted, and safe for a terminal
/// (`TerminalSanitizer.terminalSafeJSON`). Still the same JSON.
func jsonOut(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let text = TerminalSanitizer.terminalSafeJSON(String(decoding: try encoder.encode(value), as: UTF8.self))
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}

/// Runs a network step; when the server is down, says so once and goes on offline.
func online<T>(_ session: Session, _ body: () async throws -> T) async throws -> T? {
    do {
        return try await body()
    } catch let e as APIError {
        switch e {
        case .cannotConnect(let why), .unreachable(let why), .badResponse(let why):
            errOut(L.string("cli.unreachable", ["server": session.credentials.server, "reason": why]))
            return nil
        case .timeout:
            errOut(L.string("cli.unreachable", ["server": session.credentials.server, "reason": e.description]))
            return nil
        case .server:
            throw CLIError(ServerWords.describe(e, L))
        }
    }
}

/// Sends what is queued, then pulls; quiet when offline.
func syncNow(_ session: Session) async throws -> AppliedChanges? {
    _ = await session.sendQueue.drain()
    return try await online(session) { try await session.sync.pull() }
}

/// A peer by uid, account or display name: offline from the store, else
/// found (and the chat started) on the server.
func conversationId(_ session: Session, with peer: String) async throws -> String {
    if let local = try session.localConversation(with: peer) { return local }
    guard let id = try await online(session, { try await session.conversation(with: peer) }) else {
        throw CLIError("no local conversation with \(peer)")
    }
    return id
}

/// The conversation `--with` names (`history`, `export`): with `secret`,
/// the secret chat with that peer (started if new), else the open chat
/// with the peer or the group.
func resolveConversation(_ session: Session, with name: String, secret: Bool) async throws -> String {
    if secret { return try await secretConversation(session, with: name) }
    return try await conversationId(session, with: name)
}

import ArgumentParser
import ChatCore
import ChatServer
import Foundation

/// `tongban-server signals`: what users reported, and taking a signal out
/// of every feed. Works on the database of a running server.
struct SignalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signals", abstract: "List reported signals and remove signals from the feed.",
        subcommands: [Reports.self, Remove.self])

    /// Where the server keeps its data, as `tongban-server` takes it.
    struct Store: ParsableArguments {
        @Option(name: .customLong("data-dir"), help: "The server's data folder (SQLite).") var dataDir = "./tongban-data"
        @Option(name: .customLong("database"), help: "postgres://USER[:PASSWORD]@HOST:PORT/DB (also TONGBAN_DATABASE_URL).")
        var database: String?

        var config: ServerConfig {
            var config = ServerConfig()
            config.dataDir = dataDir
            let url = database ?? ProcessInfo.processInfo.environment["TONGBAN_DATABASE_URL"]
            config.databaseURL = url?.isEmpty == false ? url : nil
            config.usePostgres()
            return config
        }
    }

    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reports", abstract: "The newest reports, newest first.")
        @OptionGroup var store: Store
        @Option(help: "How many reports.") var limit = 100

        func run() async throws {
            let reports = try await ServerOperator.signalReports(config: store.config, limit: max(1, min(limit, 10_000)))
            if reports.isEmpty { print("no reports"); return }
            for r in reports {
                let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(r.createdAt) / 1000))
                let state = r.removed ? "removed" : "in feed"
                // Users wrote these words: one line each, no escapes reach the terminal.
                print("signal \(r.signalId) by \(TerminalSanitizer.oneLine(r.author)) (\(state)), reported \(when) by "
                      + "\(TerminalSanitizer.oneLine(r.reporter)): \(TerminalSanitizer.oneLine(r.reason))")
                print("  \(TerminalSanitizer.oneLine(r.content))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take a signal out of every feed (its replies stay).")
        @OptionGroup var store: Store
        @Argument(help: "The signal's id, as `signals reports` lists it.") var signalId: Int

        func run() async throws {
            try await ServerOperator.removeSignal(signalId, config: store.config)
            print("signal \(signalId) removed")
        }
    }
}

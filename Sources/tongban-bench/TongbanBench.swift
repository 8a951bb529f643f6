import ArgumentParser
import Foundation

/// `make bench`'s program: the store, server, group and PostgreSQL tables,
/// and the tools the client benchmark script (Tests/bench/clients.sh) drives.
@main
struct TongbanBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tongban-bench",
        abstract: "Tongban's benchmarks: each prints a markdown table (ours, the reference, the ratio, the goal, met).",
        discussion: "Without a subcommand it runs `all`. Figures are only comparable within one run (see BENCHMARKS.md).",
        subcommands: [All.self, Store.self, Server.self, Group.self, Room.self, Postgres.self, Abuse.self, Secret.self, Flood.self, MakeStore.self,
                      MakeGroup.self],
        defaultSubcommand: All.self)
}

/// Prints the header every table run starts with.
func benchHeader() {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("# tongban bench — \(Date()) — \(cores) cores, \(ProcessInfo.processInfo.physicalMemory / 1_048_576) MiB")
}

let benchEnvironment = ProcessInfo.processInfo.environment

/// The tools take their options as they come (passed through), so `--help`
/// among them is looked for here.
func wantsHelp(_ options: [String]) -> Bool { options.contains("--help") || options.contains("-h") }

extension TongbanBench {
    struct All: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The store, server, group, room and PostgreSQL tables, in that order (each subcommand's knobs apply).")
        func run() async throws {
            benchHeader()
            try await Store.table()
            try await Server.table()
            try await Group.table()
            try await Room.table()
            try await Postgres.table()
            try await Abuse.table()
            try await Secret.table()
        }
    }

    struct Secret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Secret chats: one message sealed and opened (store transactions), and sends/s against an open chat's.",
            discussion: "TONGBAN_BENCH_SECRET_SENDS (sends each way, default 300), TONGBAN_BENCH_SECRET_CRYPTO (seal + open, default 1000).")
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            let bench = SecretBench(sends: Int(benchEnvironment["TONGBAN_BENCH_SECRET_SENDS"] ?? "") ?? 300,
                                    crypto: Int(benchEnvironment["TONGBAN_BENCH_SECRET_CRYPTO"] ?? "") ?? 1000)
            printTable("Secret chats", try await bench.run())
        }
    }

    struct Abuse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A login flood beside normal users, on a server with its default limits (issue 46).",
            discussion: """
                TONGBAN_BENCH_ABUSE_SECONDS (each run, default 30), TONGBAN_BENCH_ABUSE_FLOOD (connections, default 48),                 TONGBAN_BENCH_ABUSE_USERS (normal users sending, default 20). A quiet run, then the same with the flood.
                """)
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            printTable("Abuse: a login flood beside normal users", try AbuseBench.fromEnvironment(benchEnvironment).run())
        }
    }

    struct Store: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The client's store: ingest, the conversation list, a page, search, against the sqlite3 CLI.",
            discussion: """
                TONGBAN_BENCH_MESSAGES (default 1000000) messages over TONGBAN_BENCH_CONVERSATIONS (default 1000) \
                conversations, in a throwaway directory.
                """)
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            let n = Int(benchEnvironment["TONGBAN_BENCH_MESSAGES"] ?? "") ?? 1_000_000
            let c = Int(benchEnvironment["TONGBAN_BENCH_CONVERSATIONS"] ?? "") ?? 1_000
            printTable("Store", try StoreBench(messages: n, conversations: c).run())
        }
    }

    struct Server: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One-to-one sends on a server in this process, saturated and paced, next to ngircd when installed.",
            discussion: """
                TONGBAN_BENCH_PAIRS (pairs of users, default 100), TONGBAN_BENCH_SENDS (sends per user, default 100), \
                TONGBAN_BENCH_PACE_MS (one send per user every so many ms in the paced run, default 100; 0 skips it).
                """)
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            printTable("Server", try await ServerBench.fromEnvironment(benchEnvironment).run())
        }
    }

    struct Group: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A group on WebSockets: sends/s and send → every member notified, next to one-to-one in the same run.",
            discussion: """
                TONGBAN_BENCH_GROUP_MEMBERS (default 500), TONGBAN_BENCH_GROUP_SENDERS (default 20), \
                TONGBAN_BENCH_GROUP_SENDS (sends per sender, default 50), TONGBAN_BENCH_GROUP_RATE (group sends/s of the \
                paced run, default 100; 0 skips it), TONGBAN_BENCH_BIG_GROUP (members of the big group, default 2000; 0 skips \
                it), TONGBAN_BENCH_PULL_GROUPS and TONGBAN_BENCH_PULL_SENDS (the sync pull: groups, default 50, and messages \
                in each, default 100; 0 groups skips it). With TONGBAN_BENCH_PG (a cluster's admin URL) the group also runs \
                on one PostgreSQL node, and history readers on storage threads against the cooperative pool.
                """)
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            printTable("Group", try await GroupBench.fromEnvironment(benchEnvironment).run())
        }
    }

    struct Room: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A room on WebSockets: sends/s and send → every present user had it, next to one-to-one in the same run.",
            discussion: """
                TONGBAN_BENCH_ROOM_MEMBERS (present users, default 1000), TONGBAN_BENCH_ROOM_SENDERS (default 20), \
                TONGBAN_BENCH_ROOM_SENDS (sends per sender, default 50), TONGBAN_BENCH_ROOM_RATE (room sends/s of the \
                paced run, default 20; 0 skips it).
                """)
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            printTable("Room", try await RoomBench.fromEnvironment(benchEnvironment).run())
        }
    }

    struct Postgres: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "SQLite against PostgreSQL on one node and on two nodes behind nginx, per core against OpenIM.",
            discussion: """
                TONGBAN_BENCH_PG names a PostgreSQL cluster's admin URL (make bench starts a throwaway one); \
                without it the section is skipped. The server knobs apply.
                """)
        func run() async throws { benchHeader(); try await Self.table() }
        static func table() async throws {
            guard let admin = benchEnvironment["TONGBAN_BENCH_PG"], !admin.isEmpty else {
                print("\n(PostgreSQL section skipped: TONGBAN_BENCH_PG names no cluster; make bench starts one)")
                return
            }
            let bench = PostgresBench(bench: ServerBench.fromEnvironment(benchEnvironment), adminURL: admin)
            printTable("PostgreSQL and two nodes", try await bench.run())
        }
    }

    struct Flood: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A peer that floods a user or a group with texts (Tests/bench/clients.sh).",
            discussion: """
                --server URL --account A --password P (--to B | --group UNIQUE) --count N --marker END \
                [--window W] [--rate R]: N texts, W (default 32) in flight; the last one, sent alone, carries MARKER-(N-1).
                """)
        @Argument(parsing: .captureForPassthrough, help: "The options above.") var options: [String] = []
        func run() async throws {
            if wantsHelp(options) { print(Self.helpMessage()); return }
            try await ClientTools.flood(["flood"] + options)
        }
    }

    struct MakeStore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mkstore",
            abstract: "Logs a user in under a data dir and fills their store with history (Tests/bench/clients.sh).",
            discussion: """
                --data-dir D --server URL --account A [--password P] --conversations C --messages N [--local]: \
                C peers really send N messages in all, or with --local N synthetic messages go straight into the store.
                """)
        @Argument(parsing: .captureForPassthrough, help: "The options above.") var options: [String] = []
        func run() async throws {
            if wantsHelp(options) { print(Self.helpMessage()); return }
            try await ClientTools.mkstore(["mkstore"] + options)
        }
    }

    struct MakeGroup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mkgroup",
            abstract: "Creates a group of N members for the group flood (Tests/bench/clients.sh).",
            discussion: """
                --server URL --account A [--password P] --unique U --name NAME --members N [--with ACCOUNT]...: \
                A, the --with accounts and as many registered bench users as it takes.
                """)
        @Argument(parsing: .captureForPassthrough, help: "The options above.") var options: [String] = []
        func run() async throws {
            if wantsHelp(options) { print(Self.helpMessage()); return }
            try await ClientTools.mkgroup(["mkgroup"] + options)
        }
    }
}

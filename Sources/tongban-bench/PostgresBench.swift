import Foundation

/// Issue 23's benchmark: the 200-user send bench on one node on SQLite,
/// one node on PostgreSQL and two PostgreSQL nodes behind nginx, in one
/// run, per core next to durable chat servers' published figures; then
/// the latency at a steady offered load on one PostgreSQL node and across
/// two (every user on node `index % 2`, so every message crosses nodes).
struct PostgresBench: Sendable {
    var bench = ServerBench()
    let adminURL: String

    /// OpenIM's stress reports: about 190-220 acknowledged messages/s per core.
    static let openIMPerCore = 220.0
    /// Mattermost on 2 vCPU: about 75-120 posts/s per core.
    static let mattermostPerCore = 120.0

    /// Two nodes' CPU per send (both nodes and PostgreSQL) against one
    /// node's: near 1× means a second node, on a machine of its own, adds
    /// capacity rather than overhead (the notices between nodes, the
    /// cursor reads both do).
    static func twoNodeCost(one: LoadResult, two: LoadResult) -> BenchRow {
        func micros(_ r: LoadResult) -> Double { (r.serverCPU + r.databaseCPU) / Double(r.messages) * 1e6 }
        let ratio = micros(two) / micros(one)
        return BenchRow(figure: "CPU per acknowledged send, two PostgreSQL nodes (both nodes and PostgreSQL, µs)", ours: micros(two),
                        reference: micros(one), referenceName: "one node", goal: "≤ 1.3× one node", met: ratio <= 1.3)
    }

    func run() async throws -> [BenchRow] {
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let users = bench.pairs * 2
        func report(_ name: String, _ r: LoadResult) {
            print("\(name): \(r.messages) messages in \(fmt(r.seconds)) s (\(fmt(r.sendsPerSecond))/s), p50 \(fmt(r.p50ms)) ms, p99 \(fmt(r.p99ms)) ms, RSS \(fmt(r.serverRSSMiB)) MiB; \(r.note)")
        }
        let pgOne = Deployment(name: "PostgreSQL, one node", postgresAdminURL: adminURL)
        let pgTwo = Deployment(name: "PostgreSQL, two nodes behind nginx", postgresAdminURL: adminURL, nodes: 2, front: .nginx)
        let pgCross = Deployment(name: "PostgreSQL, two nodes, every message across", postgresAdminURL: adminURL, nodes: 2)

        let sqlite = try await bench.runTongban(deployment: .sqlite)
        report("SQLite, one node", sqlite)
        let one = try await bench.runTongban(deployment: pgOne)
        report(pgOne.name, one)
        let two = try await bench.runTongban(deployment: pgTwo)
        report(pgTwo.name, two)
        var irc: LoadResult?
        do { irc = try IRCBench.run(pairs: bench.pairs, messages: bench.messages) } catch { print("ngircd run failed: \(error)") }

        let offered = Double(users) * 1000 / Double(bench.paceMs)
        print("paced: each user one send every \(bench.paceMs) ms (\(fmt(offered)) sends/s offered)…")
        let sameNode = try await bench.runTongban(paceMs: bench.paceMs, deployment: pgOne)
        report("paced, " + pgOne.name, sameNode)
        let crossNode = try await bench.runTongban(paceMs: bench.paceMs, deployment: pgCross)
        report("paced, " + pgCross.name, crossNode)

        let label = "\(users) users × \(bench.messages)"
        func perCore(_ r: LoadResult) -> Double { r.sendsPerSecond / cores }
        var rows = [
            BenchRow(figure: "sends/s, SQLite one node (\(label))", ours: sqlite.sendsPerSecond, goal: "", met: nil),
            BenchRow(figure: "sends/s, PostgreSQL one node", ours: one.sendsPerSecond, reference: sqlite.sendsPerSecond,
                     referenceName: "SQLite one node", goal: "≥ 0.5× SQLite", met: one.sendsPerSecond >= 0.5 * sqlite.sendsPerSecond),
            BenchRow(figure: "sends/s, PostgreSQL two nodes behind nginx", ours: two.sendsPerSecond, reference: one.sendsPerSecond,
                     referenceName: "PostgreSQL one node", goal: "", met: nil),
            BenchRow(figure: "sends/s per core, SQLite one node", ours: perCore(sqlite), reference: Self.openIMPerCore,
                     referenceName: "OpenIM per core", goal: "reported", met: nil),
            BenchRow(figure: "sends/s per core, PostgreSQL one node", ours: perCore(one), reference: Self.openIMPerCore,
                     referenceName: "OpenIM per core", goal: "reported", met: nil),
            // The goals are CPU per send (sends/s per core swing with the machine): 20× and 10× OpenIM's.
            .cpuPerSend(sqlite, "SQLite one node", goalMicros: 220),
            .cpuPerSend(one, "PostgreSQL one node", goalMicros: 450),
            .cpuPerSendWithDatabase(one, "PostgreSQL one node", goalMicros: 450),
            Self.twoNodeCost(one: one, two: two),
            BenchRow(figure: "sends/s per core, PostgreSQL two nodes", ours: perCore(two), reference: Self.mattermostPerCore,
                     referenceName: "Mattermost per core", goal: "", met: nil),
        ]
        if let irc {
            rows.append(BenchRow(figure: "sends/s per core, ngircd relay (no storage: the ceiling)", ours: irc.sendsPerSecond / cores,
                                 goal: "", met: nil))
        }
        rows += [
            BenchRow(figure: "p50 send→peer notified at \(fmt(offered)) sends/s, across two nodes (ms)", ours: crossNode.p50ms,
                     reference: sameNode.p50ms, referenceName: "one node", goal: "", met: nil),
            BenchRow(figure: "p99 send→peer notified at \(fmt(offered)) sends/s, across two nodes (ms)", ours: crossNode.p99ms,
                     reference: sameNode.p99ms, referenceName: "one node", goal: "≤ 2× one node",
                     met: crossNode.p99ms <= 2 * sameNode.p99ms),
        ]
        return rows
    }
}

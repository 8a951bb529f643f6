import Foundation
import Glibc

/// The group benchmark (issues 22 and 37): one group of `members` users,
/// each on a WebSocket, of whom the first `senders` send `messages` texts
/// each into the group as fast as the server acknowledges them. Sends/s
/// and p50/p99 from a send to the moment every member had its `sync`
/// notice, next to the same senders in one-to-one pairs in the same run,
/// so the ratio says what the fan-out costs. Then the same group at a
/// steady `pacedRate` group sends/s, the same two on one PostgreSQL node,
/// a group of `bigMembers`, and a member's sync pull after a busy hour in
/// 50 groups (`SyncPullBench`).
struct GroupBench: Sendable {
    var members = 500
    var senders = 20
    var messages = 50
    /// Group sends/s offered in all in the paced run; 0 skips it.
    var pacedRate = 100
    /// The big group's members; 0 skips it.
    var bigMembers = 2000
    /// A PostgreSQL cluster's admin URL; nil skips the PostgreSQL rows.
    var postgresAdminURL: String?
    var pull = SyncPullBench()

    static func fromEnvironment(_ env: [String: String]) -> GroupBench {
        var b = GroupBench()
        if let m = env["TONGBAN_BENCH_GROUP_MEMBERS"].flatMap(Int.init) { b.members = max(2, m) }
        if let s = env["TONGBAN_BENCH_GROUP_SENDERS"].flatMap(Int.init) { b.senders = max(2, s) }
        if let n = env["TONGBAN_BENCH_GROUP_SENDS"].flatMap(Int.init) { b.messages = max(1, n) }
        if let r = env["TONGBAN_BENCH_GROUP_RATE"].flatMap(Int.init) { b.pacedRate = max(0, r) }
        if let m = env["TONGBAN_BENCH_BIG_GROUP"].flatMap(Int.init) { b.bigMembers = max(0, m) }
        if let g = env["TONGBAN_BENCH_PULL_GROUPS"].flatMap(Int.init) { b.pull.groups = max(0, g) }
        if let n = env["TONGBAN_BENCH_PULL_SENDS"].flatMap(Int.init) { b.pull.messagesPerGroup = max(1, n) }
        b.postgresAdminURL = env["TONGBAN_BENCH_PG"].flatMap { $0.isEmpty ? nil : $0 }
        b.senders = min(b.senders, b.members) & ~1  // an even number, so the one-to-one run pairs them all
        return b
    }

    func run() async throws -> [BenchRow] {
        raiseFileLimit(to: max(members, bigMembers) * 4 + 256)
        var bench = ServerBench()
        bench.pairs = senders / 2
        bench.messages = messages
        // The one-to-one reference sends five times as much, so that it lasts
        // long enough to be a rate, not a burst.
        var reference = bench
        reference.messages = messages * 5
        let shape = ServerBench.Shape.group(members: members, senders: senders)
        func report(_ name: String, _ r: LoadResult) {
            print("tongban-server \(name): \(r.messages) messages in \(fmt(r.seconds)) s (\(fmt(r.sendsPerSecond))/s), every member told p50 \(fmt(r.allP50ms)) ms, p99 \(fmt(r.allP99ms)) ms; \(r.note)")
        }
        print("one-to-one: \(senders) users in pairs, \(reference.messages) sends each…")
        let direct = try await reference.runTongban(shape: .pairs)
        print("tongban-server one-to-one: \(direct.messages) messages in \(fmt(direct.seconds)) s, p50 \(fmt(direct.p50ms)) ms, p99 \(fmt(direct.p99ms)) ms; \(direct.note)")
        print("group: \(members) members on WebSockets, \(senders) of them sending \(messages) each…")
        let group = try await bench.runTongban(shape: shape)
        report("group", group)
        let name = "one-to-one, \(senders) senders"
        var rows = [
            BenchRow(figure: "sends/s (\(senders) senders × \(messages), group of \(members))", ours: group.sendsPerSecond,
                     reference: direct.sendsPerSecond, referenceName: name, goal: "≥ 0.1× one-to-one",
                     met: group.sendsPerSecond >= 0.1 * direct.sendsPerSecond),
            BenchRow(figure: "deliveries/s (sends × \(members - 1) listeners)", ours: group.sendsPerSecond * Double(members - 1),
                     reference: direct.sendsPerSecond, referenceName: name, goal: "—", met: nil),
            BenchRow(figure: "p50 send→every member notified (ms)", ours: group.allP50ms, reference: direct.p50ms,
                     referenceName: name, goal: "—", met: nil),
            BenchRow(figure: "p99 send→every member notified (ms)", ours: group.allP99ms, reference: direct.p99ms,
                     referenceName: name, goal: "—", met: nil),
            BenchRow(figure: "p50 send→a member notified (ms)", ours: group.p50ms, reference: direct.p50ms,
                     referenceName: name, goal: "—", met: nil),
            BenchRow(figure: "server peak RSS (MiB)", ours: group.serverRSSMiB, reference: direct.serverRSSMiB,
                     referenceName: name, goal: "—", met: nil),
        ]
        // Each sender one send every `paceMs`: `pacedRate` group sends/s in all.
        let paceMs = pacedRate > 0 ? max(1, senders * 1000 / pacedRate) : 0
        let offered = paceMs > 0 ? Double(senders) * 1000 / Double(paceMs) : 0
        var paced: LoadResult?
        if paceMs > 0 {
            print("paced group: each sender one send every \(paceMs) ms (\(fmt(offered)) group sends/s)…")
            let r = try await bench.runTongban(paceMs: paceMs, shape: shape)
            report("paced group", r)
            paced = r
            rows.append(BenchRow(figure: "p99 send→every member notified at a steady \(fmt(offered)) group sends/s (ms)",
                                 ours: r.allP99ms, reference: group.allP99ms, referenceName: "saturated", goal: "< 50 ms",
                                 met: r.allP99ms < 50))
            rows += BenchRow.cpuPerDelivery(r, deliveries: Double(r.messages * (members - 1)), offered: offered, "group")
        }
        if let admin = postgresAdminURL {
            let pg = Deployment(name: "PostgreSQL, one node", postgresAdminURL: admin)
            print("group on one PostgreSQL node…")
            let saturated = try await bench.runTongban(shape: shape, deployment: pg)
            report("group, PostgreSQL", saturated)
            rows.append(BenchRow(figure: "sends/s, group of \(members), PostgreSQL one node", ours: saturated.sendsPerSecond,
                                 reference: group.sendsPerSecond, referenceName: "SQLite", goal: "≥ 0.5× SQLite",
                                 met: saturated.sendsPerSecond >= 0.5 * group.sendsPerSecond))
            if paceMs > 0 {
                let r = try await bench.runTongban(paceMs: paceMs, shape: shape, deployment: pg)
                report("paced group, PostgreSQL", r)
                rows.append(BenchRow(figure: "p99 send→every member notified at \(fmt(offered)) group sends/s, PostgreSQL (ms)",
                                     ours: r.allP99ms, reference: paced?.allP99ms, referenceName: "SQLite", goal: "< 100 ms",
                                     met: r.allP99ms < 100))
            }
        }
        if let admin = postgresAdminURL { rows += try await SeamBench(adminURL: admin).run() }
        if bigMembers > 0 {
            print("big group: \(bigMembers) members, \(senders) of them sending \(messages) each…")
            let probe = ReadCountsProbe()
            let big = try await bench.runTongban(shape: .group(members: bigMembers, senders: senders)) { base, accounts, http in
                try await probe.measure(base: base, accounts: accounts, http: http)
            }
            report("group of \(bigMembers)", big)
            rows += probe.rows(members: bigMembers)
            rows += [
                BenchRow(figure: "sends/s, group of \(bigMembers)", ours: big.sendsPerSecond, reference: group.sendsPerSecond,
                         referenceName: "group of \(members)", goal: "reported", met: nil),
                BenchRow(figure: "p99 send→every member notified, group of \(bigMembers) (ms)", ours: big.allP99ms,
                         reference: group.allP99ms, referenceName: "group of \(members)", goal: "reported", met: nil),
                BenchRow(figure: "server peak RSS, group of \(bigMembers) (MiB)", ours: big.serverRSSMiB,
                         reference: group.serverRSSMiB, referenceName: "group of \(members)", goal: "reported", met: nil),
            ]
        }
        if pull.groups > 0 { rows += try await pull.run() }
        return rows
    }
}

/// Each member holds two sockets here and two in the server (which inherits
/// this limit); a default soft limit of 1024 would not hold 500 of them.
func raiseFileLimit(to wanted: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
    limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

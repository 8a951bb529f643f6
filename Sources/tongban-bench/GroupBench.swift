import Foundation
import Glibc

/// Issue 22's group benchmark: one group of `members` users, each on a
/// WebSocket, of whom the first `senders` send `messages` texts each into
/// the group as fast as the server acknowledges them. Sends/s and p50/p99
/// from a send to the moment every member had its `sync` notice, next to
/// the same senders in one-to-one pairs in the same run, so the ratio says
/// what the fan-out costs.
struct GroupBench: Sendable {
    var members = 500
    var senders = 20
    var messages = 50

    static func fromEnvironment(_ env: [String: String]) -> GroupBench {
        var b = GroupBench()
        if let m = env["TONGBAN_BENCH_GROUP_MEMBERS"].flatMap(Int.init) { b.members = max(2, m) }
        if let s = env["TONGBAN_BENCH_GROUP_SENDERS"].flatMap(Int.init) { b.senders = max(2, s) }
        if let n = env["TONGBAN_BENCH_GROUP_SENDS"].flatMap(Int.init) { b.messages = max(1, n) }
        b.senders = min(b.senders, b.members) & ~1  // an even number, so the one-to-one run pairs them all
        return b
    }

    func run() async throws -> [BenchRow] {
        raiseFileLimit(to: members * 4 + 256)
        var bench = ServerBench()
        bench.pairs = senders / 2
        bench.messages = messages
        print("one-to-one: \(senders) users in pairs, \(messages) sends each…")
        let direct = try await bench.runTongban(shape: .pairs)
        print("tongban-server one-to-one: \(direct.messages) messages in \(fmt(direct.seconds)) s, p50 \(fmt(direct.p50ms)) ms, p99 \(fmt(direct.p99ms)) ms; \(direct.note)")
        print("group: \(members) members on WebSockets, \(senders) of them sending \(messages) each…")
        let group = try await bench.runTongban(shape: .group(members: members, senders: senders))
        print("tongban-server group: \(group.messages) messages in \(fmt(group.seconds)) s, every member told p50 \(fmt(group.allP50ms)) ms, p99 \(fmt(group.allP99ms)) ms; \(group.note)")
        let name = "one-to-one, \(senders) senders"
        return [
            BenchRow(figure: "sends/s (\(senders) senders × \(messages), group of \(members))", ours: group.sendsPerSecond,
                     reference: direct.sendsPerSecond, referenceName: name, goal: "—", met: nil),
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

import Foundation

/// Issue 36's room benchmark: a room with `members` users present on
/// WebSockets, of whom the first `senders` send `messages` texts each as
/// fast as the server acknowledges them. A room's message goes whole to
/// every socket present, logged nowhere: sends/s and p50/p99 from a send to
/// the moment every present user had it, next to one-to-one in the same run;
/// then the same room at a steady `pacedRate` room sends/s.
struct RoomBench: Sendable {
    var members = 1000
    var senders = 20
    var messages = 50
    /// Room sends/s offered in all in the paced run; 0 skips it.
    var pacedRate = 20

    static func fromEnvironment(_ env: [String: String]) -> RoomBench {
        var b = RoomBench()
        if let m = env["TONGBAN_BENCH_ROOM_MEMBERS"].flatMap(Int.init) { b.members = max(2, m) }
        if let s = env["TONGBAN_BENCH_ROOM_SENDERS"].flatMap(Int.init) { b.senders = max(2, s) }
        if let n = env["TONGBAN_BENCH_ROOM_SENDS"].flatMap(Int.init) { b.messages = max(1, n) }
        if let r = env["TONGBAN_BENCH_ROOM_RATE"].flatMap(Int.init) { b.pacedRate = max(0, r) }
        b.senders = min(b.senders, b.members) & ~1
        return b
    }

    func run() async throws -> [BenchRow] {
        raiseFileLimit(to: members * 4 + 256)
        var bench = ServerBench()
        bench.pairs = senders / 2
        bench.messages = messages
        var reference = bench
        reference.messages = messages * 5
        print("one-to-one: \(senders) users in pairs, \(reference.messages) sends each…")
        let direct = try await reference.runTongban(shape: .pairs)
        print("tongban-server one-to-one: \(direct.messages) messages in \(fmt(direct.seconds)) s, p50 \(fmt(direct.p50ms)) ms, p99 \(fmt(direct.p99ms)) ms; \(direct.note)")
        print("room: \(members) present on WebSockets, \(senders) of them sending \(messages) each…")
        let room = try await bench.runTongban(shape: .room(members: members, senders: senders))
        print("tongban-server room: \(room.messages) messages in \(fmt(room.seconds)) s (\(fmt(room.sendsPerSecond))/s), every present user had it p50 \(fmt(room.allP50ms)) ms, p99 \(fmt(room.allP99ms)) ms; \(room.note)")
        let name = "one-to-one, \(senders) senders"
        var paced: [BenchRow] = []
        if pacedRate > 0 {
            // Each sender one send every `paceMs`: `pacedRate` room sends/s in all.
            let paceMs = max(1, senders * 1000 / pacedRate)
            let offered = Double(senders) * 1000 / Double(paceMs)
            print("paced room: each sender one send every \(paceMs) ms (\(fmt(offered)) room sends/s)…")
            let r = try await bench.runTongban(paceMs: paceMs, shape: .room(members: members, senders: senders))
            print("tongban-server paced room: \(r.messages) messages in \(fmt(r.seconds)) s, every present user had it p50 \(fmt(r.allP50ms)) ms, p99 \(fmt(r.allP99ms)) ms; \(r.note)")
            paced = [
                BenchRow(figure: "p99 send→every present user had it at a steady \(fmt(offered)) room sends/s (ms)", ours: r.allP99ms,
                         reference: nil, goal: "< 100 ms", met: r.allP99ms < 100),
            ] + BenchRow.cpuPerDelivery(r, deliveries: Double(r.messages * (members - 1)), offered: offered, "room")
        }
        return [
            BenchRow(figure: "sends/s (\(senders) senders × \(messages), room of \(members) present)", ours: room.sendsPerSecond,
                     reference: direct.sendsPerSecond, referenceName: name, goal: "reported", met: nil),
            BenchRow(figure: "deliveries/s (sends × \(members - 1) present)", ours: room.sendsPerSecond * Double(members - 1),
                     reference: direct.sendsPerSecond, referenceName: name, goal: "—", met: nil),
            BenchRow(figure: "p50 send→every present user had it (ms)", ours: room.allP50ms, reference: direct.p50ms,
                     referenceName: name, goal: "—", met: nil),
            BenchRow(figure: "p99 send→every present user had it, saturated (ms)", ours: room.allP99ms, reference: direct.p99ms,
                     referenceName: name, goal: "reported", met: nil),
            BenchRow(figure: "server peak RSS (MiB)", ours: room.serverRSSMiB, reference: direct.serverRSSMiB,
                     referenceName: name, goal: "—", met: nil),
        ] + paced
    }
}

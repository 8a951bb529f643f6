import AsyncHTTPClient
import ChatCore
import ChatSync
import Foundation
import GRDB
import NIOCore
import NIOPosix
import Synchronization

/// Issue 3's load benchmark: U WebSocket-connected users in pairs, each
/// sending M texts to its partner over HTTP; sends/s, p50/p99 latency from
/// the send request to the partner's `sync` notice, and the server's peak
/// RSS. The same shape runs against ngircd (IRCBench) in the same run.
/// Then both again at a steady offered load (each user one send every
/// `paceMs`), for the latency a server adds when it is not saturated.
struct ServerBench: Sendable {
    var pairs = 100
    var messages = 100
    /// Each user's interval between sends in the paced run; 0 skips it.
    var paceMs = 100

    /// Who talks to whom: users in pairs, or one group whose first
    /// `senders` members send and all of them listen.
    enum Shape: Sendable {
        case pairs
        case group(members: Int, senders: Int)
        /// A room the first user creates and everyone enters; the first
        /// `senders` send. Nothing is logged: each message is pushed whole.
        case room(members: Int, senders: Int)

        var isRoom: Bool { if case .room = self { true } else { false } }
    }

    static func fromEnvironment(_ env: [String: String]) -> ServerBench {
        var b = ServerBench()
        if let p = env["TONGBAN_BENCH_PAIRS"].flatMap(Int.init) { b.pairs = p }
        if let m = env["TONGBAN_BENCH_SENDS"].flatMap(Int.init) { b.messages = m }
        if let p = env["TONGBAN_BENCH_PACE_MS"].flatMap(Int.init) { b.paceMs = max(0, p) }
        return b
    }

    struct BenchError: Error, CustomStringConvertible { let description: String }

    func run() async throws -> [BenchRow] {
        let ours = try await runTongban()
        print("tongban-server: \(ours.messages) messages in \(fmt(ours.seconds)) s, p50 \(fmt(ours.p50ms)) ms, p99 \(fmt(ours.p99ms)) ms, RSS \(fmt(ours.serverRSSMiB)) MiB; \(ours.note)")
        var irc: LoadResult?
        do {
            irc = try IRCBench.run(pairs: pairs, messages: messages)
            if let irc { print("ngircd: \(irc.messages) messages in \(fmt(irc.seconds)) s, p50 \(fmt(irc.p50ms)) ms, p99 \(fmt(irc.p99ms)) ms, RSS \(fmt(irc.serverRSSMiB)) MiB \(irc.note)") }
        } catch {
            print("ngircd run failed: \(error)")
        }
        var rows = [
            BenchRow(figure: "sends/s (\(pairs * 2) users × \(messages))", ours: ours.sendsPerSecond, reference: irc?.sendsPerSecond,
                     // An IRC relay stores and acknowledges nothing: the ceiling, not a goal. Throughput
                     // goals are per core against durable chat servers (the PostgreSQL section).
                     referenceName: "ngircd", goal: "", met: nil),
            BenchRow(figure: "p50 send→peer notified (ms)", ours: ours.p50ms, reference: irc?.p50ms, referenceName: "ngircd",
                     goal: "", met: nil),
            BenchRow(figure: "p99 send→peer notified (ms)", ours: ours.p99ms, reference: irc?.p99ms, referenceName: "ngircd",
                     goal: "< 20 ms", met: ours.p99ms < 20),
            BenchRow(figure: "server peak RSS (MiB)", ours: ours.serverRSSMiB, reference: irc?.serverRSSMiB, referenceName: "ngircd",
                     goal: "", met: nil),
            // 20× OpenIM's ~4,500 µs.
            .cpuPerSend(ours, "SQLite", goalMicros: 220),
        ]
        guard paceMs > 0 else { return rows }
        let offered = Double(pairs * 2) * 1000 / Double(paceMs)
        print("paced run: each user one send every \(paceMs) ms (\(fmt(offered)) sends/s offered)…")
        let pacedOurs = try await runTongban(paceMs: paceMs)
        print("tongban-server paced: \(pacedOurs.messages) messages in \(fmt(pacedOurs.seconds)) s, p50 \(fmt(pacedOurs.p50ms)) ms, p99 \(fmt(pacedOurs.p99ms)) ms; \(pacedOurs.note)")
        var pacedIRC: LoadResult?
        do {
            pacedIRC = try IRCBench.run(pairs: pairs, messages: messages, paceMs: paceMs)
            if let p = pacedIRC { print("ngircd paced: \(p.messages) messages in \(fmt(p.seconds)) s, p50 \(fmt(p.p50ms)) ms, p99 \(fmt(p.p99ms)) ms \(p.note)") }
        } catch {
            print("ngircd paced run failed: \(error)")
        }
        rows += [
            BenchRow(figure: "p50 send→peer notified at a steady \(fmt(offered)) sends/s (ms)", ours: pacedOurs.p50ms,
                     reference: pacedIRC?.p50ms, referenceName: "ngircd", goal: "", met: nil),
            BenchRow(figure: "p99 send→peer notified at a steady \(fmt(offered)) sends/s (ms)", ours: pacedOurs.p99ms,
                     reference: pacedIRC?.p99ms, referenceName: "ngircd", goal: "", met: nil),
        ]
        return rows
    }

    /// `afterLoad` runs once the load was measured, on the same server (a
    /// probe of what the load left behind, as the read counts of a big group).
    func runTongban(paceMs: Int = 0, shape: Shape = .pairs, deployment: Deployment = .sqlite,
                    afterLoad: (@Sendable (_ base: String, _ accounts: [AuthResponse], _ http: HTTPClient) async throws -> Void)? = nil)
        async throws -> LoadResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-load-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let running = try deployment.start(dir: dir)
        defer { running.stop() }
        let base = "http://127.0.0.1:\(running.port(forUser: 0))"

        var config = HTTPClient.Configuration()
        // One connection per user, as real clients have.
        config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 2 * pairs
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: config)
        do {
            let result = try await measure(base: base, running: running, http: http, paceMs: paceMs, shape: shape, afterLoad: afterLoad)
            try? await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    func measure(base: String, running: Deployment.Running, http: HTTPClient, paceMs: Int, shape: Shape,
                 afterLoad: (@Sendable (_ base: String, _ accounts: [AuthResponse], _ http: HTTPClient) async throws -> Void)?)
        async throws -> LoadResult {
        // Wait for the server.
        let probe = APIClient(baseURL: base, http: http)
        var up = false
        for _ in 0..<200 {
            do {
                _ = try await probe.login(account: "none", password: "none-none")
            } catch let e as APIError {
                if case .server = e { up = true; break }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard up else { throw BenchError(description: "tongban-server did not start at \(base)") }

        let userCount: Int
        switch shape {
        case .pairs: userCount = pairs * 2
        case .group(let members, _), .room(let members, _): userCount = members
        }
        print("registering \(userCount) users…")
        var auths = [AuthResponse?](repeating: nil, count: userCount)
        try await withThrowingTaskGroup(of: (Int, AuthResponse).self) { group in
            var next = 0
            func add() {
                let i = next
                next += 1
                group.addTask { (i, try await APIClient(baseURL: base, http: http).register(account: "load\(i)", password: "load-password-\(i)")) }
            }
            for _ in 0..<min(4, userCount) { add() }
            while let (i, auth) = try await group.next() {
                auths[i] = auth
                if next < userCount { add() }
            }
        }
        let accounts = auths.compactMap { $0 }

        // The load: raw sockets and a poll loop per core, like the ngircd run.
        let plan = try await Self.plan(shape, accounts: accounts, base: base, http: http)
        let senders = plan.filter { $0.sends }.count
        let users = try accounts.enumerated().map { i, a in
            try LoadUser(index: i, token: a.token, conversationId: plan[i].conversationId,
                         port: running.port(forUser: i), messages: plan[i].sends ? messages : 0,
                         pacer: .spread(index: i, count: senders, intervalMs: paceMs))
        }
        for u in users { try u.upgrade() }
        for u in users { try u.waitForHello() }
        if shape.isRoom { try await Self.enterRoom(accounts: accounts, base: base, http: http) }

        print("sending \(senders * messages) messages…")
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, users.count))
        let shared = LoadWorker.Shared()
        let workers = (0..<threads).map { t in
            LoadWorker(users: stride(from: t, to: users.count, by: threads).map { users[$0] }, shared: shared)
        }
        let pids = running.servers.map(\.pid)
        let cpuBefore = pids.map(cpuSeconds).reduce(0, +)
        let onPostgres = running.onPostgres
        let databaseCPUBefore = onPostgres ? PostgresCPU.seconds() : .nan
        let benchCPUBefore = cpuSeconds(pid: getpid())
        let start = DispatchTime.now()
        let done = startThreads(workers.map { w in { w.run() } })
        // Every send answered: each user's log end is known, and the workers
        // run on until every user heard of it.
        let log = running.log!
        let deadline = ContinuousClock.now + .seconds(IRCBench.timeout)
        while shared.sendsDone.load(ordering: .acquiring) < users.count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        if shape.isRoom {
            // Everyone present hears every message, their own too.
            shared.expected.withLock { $0 = accounts.map { _ in senders * messages } }
        } else {
            let ends = try log.ends()
            shared.expected.withLock { $0 = accounts.map { ends[$0.uid] ?? 0 } }
        }
        let settled = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async {
                if done.wait(timeout: .now() + 10) == .timedOut {
                    shared.stop.set()
                    done.wait()
                    c.resume(returning: false)
                } else {
                    c.resume(returning: true)
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let rss = pids.map(peakRSSMiB).reduce(0, +)
        let serverCPU = pids.map(cpuSeconds).reduce(0, +) - cpuBefore
        let benchCPU = cpuSeconds(pid: getpid()) - benchCPUBefore
        let databaseCPU = onPostgres ? PostgresCPU.seconds() - databaseCPUBefore : .nan
        if let failed = users.first(where: \.failed) {
            throw BenchError(description: "user \(failed.index): \(failed.failure ?? "")")
        }

        // Which event (cursor) told which user about which message: from the server's log.
        let uidIndex = Dictionary(uniqueKeysWithValues: accounts.enumerated().map { ($1.uid, $0) })
        var sentTimes: [String: UInt64] = [:]
        for u in users {
            for (n, t) in u.sentAt.enumerated() where t != 0 { sentTimes["b\(u.index)-\(n)"] = t }
        }
        let sent = sentTimes
        // A `sync` notice says "your log reached cursor N": it announces every
        // event up to N, so an event was notified by the first notice at or
        // past its cursor (the server sends one notice per user per commit).
        let notices: [[(cursor: Int, at: UInt64)]] = users.map { u in u.notices.sorted { $0.cursor < $1.cursor } }
        @Sendable func notified(_ idx: Int, _ cursor: Int) -> UInt64? {
            let list = notices[idx]
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if list[mid].cursor < cursor { lo = mid + 1 } else { hi = mid }
            }
            return lo < list.count ? list[lo].at : nil
        }
        var perNotice: [Double] = []
        // The slowest member's latency per message (when everyone was told)
        // and how many members were told at all.
        var perMessage: [String: (ms: Double, heard: Int)] = [:]
        if shape.isRoom {
            // A room's message is pushed whole: each user's arrival is its own.
            var sentByKey: [Int: UInt64] = [:]
            for u in users {
                for (n, t) in u.sentAt.enumerated() where t != 0 { sentByKey[LoadUser.roomKey(sender: u.index, n: n)] = t }
            }
            for u in users {
                for (key, t1) in u.roomArrivals {
                    guard let t0 = sentByKey[key], key >> 24 != u.index else { continue }
                    let clientMsgID = "b\(key >> 24)-\(key & 0xFF_FFFF)"
                    let ms = Double(Int64(t1) - Int64(t0)) / 1e6
                    perNotice.append(ms)
                    let seen = perMessage[clientMsgID] ?? (0, 0)
                    perMessage[clientMsgID] = (max(seen.ms, ms), seen.heard + 1)
                }
            }
        } else {
            try log.deliveries { cursor, uid, clientMsgID, sender in
                guard uid != sender, let idx = uidIndex[uid], let t0 = sent[clientMsgID], let t1 = notified(idx, cursor) else { return }
                let ms = Double(Int64(t1) - Int64(t0)) / 1e6
                perNotice.append(ms)
                let seen = perMessage[clientMsgID] ?? (0, 0)
                perMessage[clientMsgID] = (max(seen.ms, ms), seen.heard + 1)
            }
        }
        let latencies = perNotice.sorted()
        // Only messages every listener heard of: one a member missed has no
        // "everyone notified" time (the note says how many there were).
        let everyone = perMessage.values.filter { $0.heard == plan.listeners }.map(\.ms).sorted()
        let total = senders * messages
        // Send -> acknowledgement, for comparison: the part of the latency before the notice.
        let acks = users.flatMap { u in zip(u.sentAt, u.answeredAt).filter { $0.1 > $0.0 }.map { Double($0.1 - $0.0) / 1e6 } }.sorted()
        if let afterLoad { try await afterLoad(base, accounts, http) }
        return LoadResult(messages: total, seconds: seconds, sendsPerSecond: Double(total) / seconds,
                          p50ms: percentile(latencies, 50), p99ms: percentile(latencies, 99),
                          allP50ms: percentile(everyone, 50), allP99ms: percentile(everyone, 99), serverRSSMiB: rss,
                          note: "\(users.reduce(0) { $0 + $1.notices.count }) sync notices; send->ack p50 \(fmt(percentile(acks, 50))) ms, p99 \(fmt(percentile(acks, 99))) ms; \(latencies.count) of \(total * plan.listeners) notices matched, \(everyone.count) of \(total) messages reached every listener\(settled ? "" : " (not all heard within 10 s)"); CPU during the sends: server \(fmt(serverCPU)) s\(onPostgres ? ", PostgreSQL \(fmt(databaseCPU)) s" : ""), bench clients \(fmt(benchCPU)) s", serverCPU: serverCPU, benchCPU: benchCPU, databaseCPU: databaseCPU)
    }

    /// Each user's conversation and whether it sends, for a shape.
    struct Seat { var conversationId: String; var sends: Bool }

    static func plan(_ shape: Shape, accounts: [AuthResponse], base: String, http: HTTPClient) async throws -> [Seat] {
        switch shape {
        case .pairs:
            return accounts.enumerated().map { i, a in
                Seat(conversationId: ConversationIDHelper.make(myUid: a.uid, targetUid: accounts[i ^ 1].uid), sends: true)
            }
        case .group(_, let senders):
            guard let owner = accounts.first else { return [] }
            let api = APIClient(baseURL: base, token: owner.token, http: http)
            let group = try await api.createGroup(CreateGroupRequest(
                name: "压测群 bench", uniqueName: "bench_group", memberIds: accounts.dropFirst().map(\.uid)))
            print("group \(group.conversationId): \(group.memberCount) members")
            return accounts.indices.map { Seat(conversationId: group.conversationId, sends: $0 < senders) }
        case .room(_, let senders):
            // A fresh server's first room is sr_1 (`enterRoom` checks); the users
            // enter it once their sockets are up (rooms are for users online).
            return accounts.indices.map { Seat(conversationId: ConversationIDHelper.room(1), sends: $0 < senders) }
        }
    }

    /// The first user creates the bench's room, then everyone enters it, eight at a time.
    static func enterRoom(accounts: [AuthResponse], base: String, http: HTTPClient) async throws {
        guard let owner = accounts.first else { return }
        let room = try await APIClient(baseURL: base, token: owner.token, http: http)
            .createRoom(CreateRoomRequest(name: "压测房间 bench", uniqueName: "bench_room"))
        guard room.conversationId == ConversationIDHelper.room(1) else {
            throw BenchError(description: "the bench's room is \(room.conversationId), not sr_1: the server was not fresh")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 1
            func add() {
                let a = accounts[next]
                next += 1
                group.addTask { _ = try await APIClient(baseURL: base, token: a.token, http: http).enterRoom(uniqueName: "bench_room") }
            }
            for _ in 0..<min(8, accounts.count - 1) { add() }
            while try await group.next() != nil { if next < accounts.count { add() } }
        }
        print("room \(room.conversationId): \(accounts.count) present")
    }
}

extension Array where Element == ServerBench.Seat {
    /// Who hears each message: every other member of its conversation.
    var listeners: Int {
        guard let first = first else { return 0 }
        return allSatisfy { $0.conversationId == first.conversationId } ? count - 1 : 1
    }
}

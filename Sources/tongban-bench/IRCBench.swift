import Foundation
import Spawn
import Glibc

/// One load run's figures; shared by ServerBench (tongban-server) and IRCBench (ngircd).
struct LoadResult: Sendable {
    var messages: Int
    var seconds: Double
    var sendsPerSecond: Double
    var p50ms: Double
    var p99ms: Double
    /// Send → the last of its listeners notified (the same as p50/p99 when
    /// each message has one listener).
    var allP50ms: Double = .nan
    var allP99ms: Double = .nan
    var serverRSSMiB: Double
    var note: String
    /// CPU seconds during the sends: the servers', and this process's (the load's clients).
    var serverCPU: Double = .nan
    var benchCPU: Double = .nan
    /// PostgreSQL's processes' CPU seconds during the sends (nan on SQLite).
    var databaseCPU: Double = .nan
}

struct IRCBenchError: Error, CustomStringConvertible {
    let description: String
}

/// Peak resident set size (VmHWM) of a live process in MiB, NaN if unreadable.
func peakRSSMiB(pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return .nan }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let fields = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
        if let kiB = fields.first.flatMap({ Double($0) }) { return kiB / 1024 }
    }
    return .nan
}

/// CPU seconds (utime + stime) a process used so far, or nan.
func cpuSeconds(pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let stat = ProcStat(text) else { return .nan }
    return ProcStat.seconds(ticks: stat.utime + stat.stime)
}

/// A port on 127.0.0.1 that was free a moment ago (the kernel picks it for a bind to port 0).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw IRCBenchError(description: "socket(): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var addr = loopbackAddress(port: 0)
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) { ptr in
        ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
            bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
        }
    }
    guard ok else { throw IRCBenchError(description: "could not bind a loopback port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Nearest-rank percentile (p in 0...100) of an ascending array; NaN when empty.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank - 1, 0), sorted.count - 1)]
}

/// The tongban load shape against ngircd: 2·P clients in pairs, each sending M
/// PRIVMSGs (half Chinese, half ASCII) to its partner as fast as its socket
/// takes them; throughput from first send to last receipt, send→receipt
/// latency, and ngircd's peak RSS.
///
/// ngircd throttles ordinary clients: at most three commands per main-loop pass,
/// and a one-second "penalty" (socket not read) when more are queued or a client
/// exceeds its byte rate; registration itself leaves such penalties behind, which
/// with stock settings stall this load for seconds. There is no single
/// off switch, but two knobs together remove it, and both are used:
/// `MaxPenaltyTime = 0` turns every penalty under 10 s into zero seconds, and user
/// mode +F (only settable by IRC operators, hence the OPER per client) exempts a
/// client from throttling and raises its per-pass budget from 3 to 10 commands.
/// The one penalty left is the ≥ 10 s one for failed logins, which never fires here.
enum IRCBench {
    static let ngircdPath = "/usr/sbin/ngircd"

    /// Seconds the load phase may take before the run is cut short.
    static let timeout: Double = 120

    static func run(pairs: Int, messages: Int, paceMs: Int = 0) throws -> LoadResult {
        guard pairs > 0, messages > 0 else { throw IRCBenchError(description: "pairs and messages must be positive") }
        guard FileManager.default.isExecutableFile(atPath: ngircdPath) else {
            throw IRCBenchError(description: "ngircd is not installed (\(ngircdPath) missing; apt-get install -y ngircd)")
        }

        let port = try freeLoopbackPort()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ircbench-\(getpid())-\(port)")
        try? FileManager.default.removeItem(at: dir)
        // An empty IncludeDir keeps /etc/ngircd/ngircd.conf.d snippets out of the run.
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("conf.d"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let operPassword = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
        let confPath = dir.appendingPathComponent("ngircd.conf").path
        let logPath = dir.appendingPathComponent("ngircd.log").path
        try config(port: port, includeDir: dir.appendingPathComponent("conf.d").path, operPassword: operPassword)
            .write(toFile: confPath, atomically: true, encoding: .utf8)

        // Log to a file, not a pipe: nobody drains a pipe while the load runs, and a full
        // pipe would stall ngircd's single thread.
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
              let log = FileHandle(forWritingAtPath: logPath) else {
            throw IRCBenchError(description: "cannot create \(logPath)")
        }
        defer { try? log.close() }
        let server = try ChildProcess(ngircdPath, ["--nodaemon", "--config", confPath],
                                      stdout: .descriptor(log.fileDescriptor), stderr: .descriptor(log.fileDescriptor))
        defer { stop(server) }
        try waitForListener(server, port: port, logPath: logPath)

        let clients = try register(count: pairs * 2, port: port, operPassword: operPassword, logPath: logPath)
        defer { for c in clients { close(c.fd) } }
        let exempt = clients.filter(\.floodExempt).count

        // One thread per core, each polling a slice of the clients, so the load generator
        // does not crowd single-threaded ngircd off the cores the way 2·P blocking readers
        // would. Clients are dealt round-robin: with an even thread count, partners sit on
        // different threads.
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, clients.count))
        let stopFlag = StopFlag()
        let workers = (0..<threads).map { t in
            Worker(clients: stride(from: t, to: clients.count, by: threads).map { clients[$0] }, messages: messages, stop: stopFlag)
        }
        for c in clients { c.pacer = .spread(index: c.index, count: clients.count, intervalMs: paceMs) }
        let done = startThreads(workers.map { w in { w.run() } })
        var timedOut = false
        if done.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            stopFlag.set()
            done.wait()
        }
        let rss = peakRSSMiB(pid: server.pid)

        // The workers have finished: their clients are ours again.
        var latencies: [Double] = []
        latencies.reserveCapacity(clients.count * messages)
        var firstSend = UInt64.max, lastReceive: UInt64 = 0
        for sender in clients {
            let receiver = clients[sender.index ^ 1]
            for n in 0..<messages where sender.sentAt[n] != 0 {
                firstSend = min(firstSend, sender.sentAt[n])
                let got = receiver.receivedAt[n]
                guard got != 0 else { continue }
                lastReceive = max(lastReceive, got)
                latencies.append(Double(Int64(bitPattern: got &- sender.sentAt[n])) / 1e6)
            }
        }
        latencies.sort()
        let total = clients.count * messages
        let received = latencies.count
        let seconds = received > 0 ? Double(lastReceive - firstSend) / 1e9 : timeout
        let dropped = clients.filter(\.closed).count

        var note = "ngircd \(ngircdVersion()): \(received) of \(total) received; MaxPenaltyTime=0, +F on \(exempt)/\(clients.count) clients"
        if timedOut { note += "; timed out after \(Int(timeout)) s" }
        if dropped > 0 { note += "; \(dropped) connections dropped by the server" }
        return LoadResult(messages: received, seconds: seconds, sendsPerSecond: seconds > 0 ? Double(received) / seconds : 0,
                          p50ms: percentile(latencies, 50), p99ms: percentile(latencies, 99), serverRSSMiB: rss, note: note)
    }

    // MARK: - Server

    private static func config(port: Int, includeDir: String, operPassword: String) -> String {
        """
        [Global]
        Name = bench.irc
        Info = tongban bench reference server
        AdminInfo1 = tongban bench
        AdminInfo2 = loopback only
        AdminEMail = bench@localhost
        Listen = 127.0.0.1
        Ports = \(port)
        MotdPhrase = bench

        [Limits]
        MaxConnections = 0
        MaxConnectionsIP = 0
        MaxJoins = 0
        MaxPenaltyTime = 0
        PingTimeout = 600
        PongTimeout = 600

        [Options]
        DNS = no
        Ident = no
        PAM = no
        IncludeDir = \(includeDir)

        [Operator]
        Name = bench
        Password = \(operPassword)

        """
    }

    private static func waitForListener(_ server: ChildProcess, port: Int, logPath: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard server.isRunning else {
                throw IRCBenchError(description: "ngircd exited during startup (\(server.waitUntilExit())): \(logTail(logPath))")
            }
            if let fd = connectLoopback(port: port) {
                close(fd)
                return
            }
            usleep(20_000)
        }
        throw IRCBenchError(description: "ngircd did not listen on 127.0.0.1:\(port) within 10 s: \(logTail(logPath))")
    }

    private static func stop(_ server: ChildProcess) {
        server.send(SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while server.isRunning && Date() < deadline { usleep(10_000) }
        server.send(SIGKILL)
        _ = server.waitUntilExit()
    }

    private static func logTail(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    private static func ngircdVersion() -> String {
        guard let (data, _) = try? ChildProcess.run(ngircdPath, ["--version"], stderr: .null) else { return "?" }
        // "ngIRCd 26.1-IDENT+IPv6+..." → "26.1"
        let first = String(decoding: data, as: UTF8.self).split(separator: "\n").first ?? ""
        return first.split(separator: " ").dropFirst().first?.split(separator: "-").first.map(String.init) ?? "?"
    }

    // MARK: - Setup (blocking, main thread)

    /// Connects, registers and flood-exempts `count` clients. Done in small batches
    /// because ngircd listens with a backlog of 10.
    private static func register(count: Int, port: Int, operPassword: String, logPath: String) throws -> [IRCClient] {
        var clients: [IRCClient] = []
        clients.reserveCapacity(count)
        do {
            let batch = 10
            for start in stride(from: 0, to: count, by: batch) {
                let range = start..<min(start + batch, count)
                for i in range {
                    guard let fd = connectLoopback(port: port) else {
                        throw IRCBenchError(description: "connect to ngircd failed for client \(i): \(String(cString: strerror(errno)))")
                    }
                    let c = IRCClient(index: i, fd: fd)
                    clients.append(c)
                    try c.sendAll("NICK \(c.nick)\r\nUSER \(c.nick) 0 * :bench\r\n")
                }
                for i in range {
                    let c = clients[i]
                    while true {
                        let line = try c.nextLine()
                        let f = line.split(separator: " ", maxSplits: 3)
                        if f.count >= 2 && f[1] == "001" { break }
                        if f.first == "ERROR" || (f.count >= 2 && (Int(f[1]) ?? 0) >= 400) {
                            throw IRCBenchError(description: "registration of \(c.nick) failed: \(line)")
                        }
                    }
                }
            }
            for c in clients { try c.sendAll("OPER bench \(operPassword)\r\nMODE \(c.nick) +F\r\n") }
            for c in clients {
                while true {
                    let line = try c.nextLine()
                    let f = line.split(separator: " ", maxSplits: 3)
                    if f.count >= 4 && f[1] == "MODE" && f[3].contains("F") { c.floodExempt = true; break }
                    if f.count >= 2 && (Int(f[1]) ?? 0) >= 400 { break }  // OPER or MODE refused: that client stays throttled
                    if f.first == "ERROR" { throw IRCBenchError(description: "\(c.nick) was disconnected: \(line)") }
                }
            }
        } catch {
            for c in clients { close(c.fd) }
            throw IRCBenchError(description: "\(error) — ngircd log: \(logTail(logPath))")
        }
        return clients
    }
}

import Foundation
import Glibc

/// One load run's figures; shared by ServerBench (tongban-server) and IRCBench (ngircd).
struct LoadResult: Sendable {
    var messages: Int
    var seconds: Double
    var sendsPerSecond: Double
    var p50ms: Double
    var p99ms: Double
    var serverRSSMiB: Double
    var note: String
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
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return .nan }
    // Fields after "pid (comm)": state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let u = Double(fields[11]), let s = Double(fields[12]) else { return .nan }
    let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
    return (u + s) / (hz > 0 ? hz : 100)
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
/// with stock settings stalled this load by ~2 s (p50 ≈ 2 s). There is no single
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
        let server = Process()
        server.executableURL = URL(fileURLWithPath: ngircdPath)
        server.arguments = ["--nodaemon", "--config", confPath]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = log
        server.standardError = log
        try server.run()
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
        let rss = peakRSSMiB(pid: server.processIdentifier)

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

    private static func waitForListener(_ server: Process, port: Int, logPath: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard server.isRunning else {
                throw IRCBenchError(description: "ngircd exited during startup (status \(server.terminationStatus)): \(logTail(logPath))")
            }
            if let fd = connectLoopback(port: port) {
                close(fd)
                return
            }
            usleep(20_000)
        }
        throw IRCBenchError(description: "ngircd did not listen on 127.0.0.1:\(port) within 10 s: \(logTail(logPath))")
    }

    private static func stop(_ server: Process) {
        if server.isRunning { server.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while server.isRunning && Date() < deadline { usleep(10_000) }
        if server.isRunning {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
    }

    private static func logTail(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    private static func ngircdVersion() -> String {
        let out = Pipe()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ngircdPath)
        p.arguments = ["--version"]
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return "?" }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
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

// MARK: - Clients and workers

/// One IRC connection. Not thread-safe: it belongs to the main thread during setup and
/// after the run, and to exactly one worker thread in between.
private final class IRCClient {
    let index: Int
    let fd: Int32
    let nick: String
    var floodExempt = false
    var closed = false
    var inbox: [UInt8] = []
    // Outgoing bytes not yet taken by the socket: at most one PRIVMSG plus any PONGs.
    var out: [UInt8] = []
    var outSent = 0
    var nextSeq = 0
    /// When each PRIVMSG is due (unpaced: as soon as the previous one is out).
    var pacer = Pacer()
    /// Monotonic ns when message n of this client was handed to send(); 0 = not sent.
    var sentAt: [UInt64] = []
    /// Monotonic ns when the partner's message n arrived here; 0 = not yet.
    var receivedAt: [UInt64] = []
    var received = 0

    init(index: Int, fd: Int32) {
        self.index = index
        self.fd = fd
        self.nick = "b\(index)"
    }

    var partner: Int { index ^ 1 }

    // Setup phase: blocking I/O.

    func sendAll(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw IRCBenchError(description: "send to ngircd failed for \(nick): \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Next line from the server, answering PINGs on the way.
    func nextLine() throws -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let nl = inbox.firstIndex(of: UInt8(ascii: "\n")) {
                var line = inbox[..<nl]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                let text = String(decoding: line, as: UTF8.self)
                inbox.removeSubrange(...nl)
                if text.hasPrefix("PING") {
                    try sendAll("PONG" + text.dropFirst(4) + "\r\n")
                    continue
                }
                return text
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw IRCBenchError(description: n == 0 ? "ngircd closed the connection of \(nick)" : "no reply to \(nick) within 10 s")
            }
            inbox.append(contentsOf: chunk[..<n])
        }
    }

    // Load phase: non-blocking I/O driven by a worker's poll loop.

    func beginLoad(messages: Int, at start: UInt64) {
        pacer.begin(at: start)
        sentAt = Array(repeating: 0, count: messages)
        receivedAt = Array(repeating: 0, count: messages)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    func wantsWrite(messages: Int, now: UInt64) -> Bool {
        outSent < out.count || (nextSeq < messages && pacer.wait(nextSeq, now: now) == 0)
    }

    /// Queues the next PRIVMSG if the previous one is out and it is due, then
    /// writes what the socket takes.
    func pumpOut(messages: Int) {
        if outSent == out.count {
            out.removeAll(keepingCapacity: true)
            outSent = 0
            guard nextSeq < messages, pacer.wait(nextSeq, now: monotonicNanos()) == 0 else { return }
            let n = nextSeq
            let text = n % 2 == 0 ? "你好世界 \(n)" : "hello world \(n)"
            out.append(contentsOf: "PRIVMSG b\(partner) :\(index)-\(n) \(text)\r\n".utf8)
            nextSeq += 1
            sentAt[n] = monotonicNanos()
        }
        let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + outSent, $0.count - outSent, Int32(MSG_NOSIGNAL)) }
        if n > 0 {
            outSent += n
        } else if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            closed = true
        }
    }

    func pullIn(into buffer: inout [UInt8], messages: Int) {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let now = monotonicNanos()
        if n == 0 { closed = true; return }
        if n < 0 {
            if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { closed = true }
            return
        }
        inbox.append(contentsOf: buffer[..<n])
        var lineStart = inbox.startIndex
        while let nl = inbox[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = nl
            if end > lineStart && inbox[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            handle(line: inbox[lineStart..<end], at: now, messages: messages)
            lineStart = nl + 1
        }
        inbox.removeSubrange(..<lineStart)
    }

    private func handle(line: ArraySlice<UInt8>, at now: UInt64, messages: Int) {
        if line.starts(with: "PING".utf8) {
            out.append(contentsOf: "PONG".utf8)
            out.append(contentsOf: line.dropFirst(4))
            out.append(contentsOf: "\r\n".utf8)
            return
        }
        // ":b3!~b3@127.0.0.1 PRIVMSG b2 :3-17 你好世界 17"
        guard let (sender, seq) = Self.parsePrivmsg(line), sender == partner, seq < messages, receivedAt[seq] == 0 else { return }
        receivedAt[seq] = now
        received += 1
    }

    private static func parsePrivmsg(_ line: ArraySlice<UInt8>) -> (Int, Int)? {
        let space = UInt8(ascii: " "), colon = UInt8(ascii: ":")
        var i = line.startIndex
        if line.first == colon {
            guard let sp = line.firstIndex(of: space) else { return nil }
            i = sp + 1
        }
        guard line[i...].starts(with: "PRIVMSG ".utf8) else { return nil }
        i += 8
        while i + 1 < line.endIndex && !(line[i] == space && line[i + 1] == colon) { i += 1 }
        i += 2
        func number(until stop: UInt8) -> Int? {
            var value = 0, digits = 0
            while i < line.endIndex, line[i] >= UInt8(ascii: "0"), line[i] <= UInt8(ascii: "9") {
                value = value * 10 + Int(line[i] - UInt8(ascii: "0"))
                digits += 1
                i += 1
            }
            guard digits > 0, i < line.endIndex, line[i] == stop else { return nil }
            i += 1
            return value
        }
        guard i < line.endIndex, let sender = number(until: UInt8(ascii: "-")), let seq = number(until: space) else { return nil }
        return (sender, seq)
    }
}

/// Drives a slice of the clients on its own thread. @unchecked: the main thread hands
/// the clients over before `run()` starts and takes them back only after it has
/// returned (DispatchGroup wait), so no client is ever touched by two threads at once.
private final class Worker: @unchecked Sendable {
    let clients: [IRCClient]
    let messages: Int
    let stop: StopFlag

    init(clients: [IRCClient], messages: Int, stop: StopFlag) {
        self.clients = clients
        self.messages = messages
        self.stop = stop
    }

    func run() {
        let start = monotonicNanos()
        for c in clients { c.beginLoad(messages: messages, at: start) }
        var fds = clients.map { pollfd(fd: $0.fd, events: 0, revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !stop.isSet {
            var busy = false
            // 50 ms keeps the stop flag responsive without spinning; a paced
            // send due sooner shortens it.
            var timeout: Int32 = 50
            let now = monotonicNanos()
            for (k, c) in clients.enumerated() {
                if c.closed { fds[k].fd = -1; continue }  // poll() skips negative fds
                let write = c.wantsWrite(messages: messages, now: now)
                busy = busy || write || c.received < messages || c.nextSeq < messages
                if c.nextSeq < messages && c.outSent == c.out.count { timeout = min(timeout, c.pacer.pollTimeout(c.nextSeq, now: now, cap: timeout)) }
                fds[k].events = Int16(POLLIN) | (write ? Int16(POLLOUT) : 0)
                fds[k].revents = 0
            }
            guard busy else { return }
            guard poll(&fds, nfds_t(fds.count), timeout) > 0 else { continue }
            // Round robin, one PRIVMSG per client per pass, so all clients send concurrently.
            for (k, c) in clients.enumerated() where fds[k].revents != 0 && !c.closed {
                let r = fds[k].revents
                if r & Int16(POLLIN | POLLHUP | POLLERR) != 0 { c.pullIn(into: &buffer, messages: messages) }
                if r & Int16(POLLOUT) != 0 && !c.closed { c.pumpOut(messages: messages) }
            }
        }
    }
}

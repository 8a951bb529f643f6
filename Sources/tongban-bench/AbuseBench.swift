import ChatCore
import Foundation
import Glibc

/// Issue 46's abuse benchmark: a server with its default limits, `users`
/// normal users each sending a text every 100 ms while `/healthz` is asked
/// every 50 ms; first quietly, then beside a flood of wrong logins from
/// `flood` connections spread over loopback addresses 127.0.0.2 … 127.0.0.9
/// (each its own client address). Goals: `/healthz` and the normal users'
/// sends within 2× of the quiet run at p99, and every flood request answered
/// 401 or 429, never left waiting.
struct AbuseBench: Sendable {
    var seconds = 30
    var flood = 48
    var users = 20

    static func fromEnvironment(_ env: [String: String]) -> AbuseBench {
        var b = AbuseBench()
        if let s = env["TONGBAN_BENCH_ABUSE_SECONDS"].flatMap(Int.init) { b.seconds = max(1, s) }
        if let f = env["TONGBAN_BENCH_ABUSE_FLOOD"].flatMap(Int.init) { b.flood = max(1, f) }
        if let u = env["TONGBAN_BENCH_ABUSE_USERS"].flatMap(Int.init) { b.users = max(2, u) & ~1 }
        return b
    }

    struct Phase {
        var health: [Double] = []
        var sends: [Double] = []
        var failedSends = 0
        var floodCodes: [Int: Int] = [:]
        var floodUnanswered = 0
    }

    func run() throws -> [BenchRow] {
        raiseFileLimit(to: flood * 2 + users * 2 + 256)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-abuse-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        var deployment = Deployment()
        // The bench's own users sign up from 127.0.0.1: that one limit is raised for them, no other.
        deployment.limits = ["--signups-per-hour", String(users + 10)]
        let running = try deployment.start(dir: dir)
        defer { running.stop() }
        let port = running.nodePorts[0]
        var accounts: [AuthResponse] = []
        let setup = BlockingHTTP(port: port)
        for i in 0..<users {
            let name = "abuse_\(i)"
            guard let r = setup.request("POST", "/auth/register", json: RegisterRequest(account: name, password: "password-\(name)")),
                  r.status == 201, let auth = try? JSONDecoder().decode(AuthResponse.self, from: Data(r.body)) else {
                throw BenchFailure("could not sign \(name) up")
            }
            accounts.append(auth)
        }
        print("abuse: \(users) users sending, quiet for \(seconds) s…")
        let quiet = measure(port: port, accounts: accounts, withFlood: false)
        print("abuse: the same beside \(flood) connections of wrong logins for \(seconds) s…")
        let loud = measure(port: port, accounts: accounts, withFlood: true)
        let q = (health: percentile(quiet.health.sorted(), 99), send: percentile(quiet.sends.sorted(), 99))
        let l = (health: percentile(loud.health.sorted(), 99), send: percentile(loud.sends.sorted(), 99))
        let answered = loud.floodCodes.values.reduce(0, +)
        let refused = (loud.floodCodes[401] ?? 0) + (loud.floodCodes[429] ?? 0)
        print("abuse: flood answers \(loud.floodCodes.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: " ")), "
              + "\(loud.floodUnanswered) unanswered; failed sends quiet \(quiet.failedSends), flood \(loud.failedSends)")
        return [
            BenchRow(figure: "/healthz p99 during the flood (ms)", ours: l.health, reference: q.health, referenceName: "quiet",
                     goal: "≤ 2× quiet", met: l.health <= 2 * max(q.health, 1)),
            BenchRow(figure: "normal users' send p99 during the flood (ms)", ours: l.send, reference: q.send, referenceName: "quiet",
                     goal: "≤ 2× quiet", met: l.send <= 2 * max(q.send, 1) && loud.failedSends == 0),
            BenchRow(figure: "flood requests answered 401 or 429", ours: Double(refused), reference: Double(answered + loud.floodUnanswered),
                     referenceName: "flood requests", goal: "all, none unanswered", met: refused == answered && loud.floodUnanswered == 0),
        ]
    }

    /// One run of `seconds`: the users' sends and the health checks, and the flood if asked.
    private func measure(port: Int, accounts: [AuthResponse], withFlood: Bool) -> Phase {
        let results = PhaseBox()
        let stop = StopFlag()
        var bodies: [@Sendable () -> Void] = []
        for (i, me) in accounts.enumerated() {
            let peer = accounts[i ^ 1]
            bodies.append {
                let http = BlockingHTTP(port: port)
                let conversation = ConversationIDHelper.make(myUid: me.uid, targetUid: peer.uid)
                var n = 0
                while !stop.isSet {
                    let started = monotonicNanos()
                    let r = http.request("POST", "/chat/message/send", token: me.token,
                                         json: SendMessageRequest(recvID: conversation, content: "hello \(n)", contentType: ContentType.text,
                                                                  clientMsgId: "abuse-\(withFlood)-\(me.uid)-\(n)"))
                    let ms = Double(monotonicNanos() - started) / 1e6
                    results.add { if r?.status == 200 { $0.sends.append(ms) } else { $0.failedSends += 1 } }
                    n += 1
                    usleep(UInt32(max(0, 100_000 - Int(ms * 1000))))
                }
            }
        }
        bodies.append {
            let http = BlockingHTTP(port: port)
            while !stop.isSet {
                let started = monotonicNanos()
                let r = http.request("GET", "/healthz")
                let ms = Double(monotonicNanos() - started) / 1e6
                if r?.status == 200 { results.add { $0.health.append(ms) } }
                usleep(50_000)
            }
        }
        if withFlood {
            for i in 0..<flood {
                bodies.append {
                    let http = BlockingHTTP(port: port, source: "127.0.0.\(2 + i % 8)")
                    var n = 0
                    while !stop.isSet {
                        let r = http.request("POST", "/auth/login",
                                             json: LoginRequest(account: "abuse_\(n % 20)", password: "guess-\(i)-\(n)"))
                        results.add { p in
                            if let r { p.floodCodes[r.status, default: 0] += 1 } else { p.floodUnanswered += 1 }
                        }
                        n += 1
                    }
                }
            }
        }
        let done = startThreads(bodies)
        Thread.sleep(forTimeInterval: Double(seconds))
        stop.set()
        done.wait()
        return results.phase
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The phase's figures, added to from every thread.
private final class PhaseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = AbuseBench.Phase()
    func add(_ change: (inout AbuseBench.Phase) -> Void) { lock.withLock { change(&value) } }
    var phase: AbuseBench.Phase { lock.withLock { value } }
}

/// HTTP/1.1 on one kept-alive loopback connection, blocking, from `source`
/// (a loopback address of its own: the server counts it as another client).
/// A request that gets no answer within 10 s counts as unanswered (nil).
final class BlockingHTTP: @unchecked Sendable {
    private let port: Int
    private let source: String?
    private var fd: Int32 = -1

    init(port: Int, source: String? = nil) { self.port = port; self.source = source }
    deinit { if fd >= 0 { close(fd) } }

    func request<T: Encodable>(_ method: String, _ path: String, token: String? = nil, json: T) -> (status: Int, body: [UInt8])? {
        request(method, path, token: token, body: (try? JSONEncoder().encode(json)).map { Array($0) })
    }

    func request(_ method: String, _ path: String, token: String? = nil, body: [UInt8]? = nil) -> (status: Int, body: [UInt8])? {
        for _ in 0..<2 {
            if fd < 0 { fd = connect() }
            guard fd >= 0 else { return nil }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            if let token { head += "Authorization: Bearer \(token)\r\n" }
            if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
            let bytes = Array((head + "\r\n").utf8) + (body ?? [])
            if writeAll(bytes), let answer = readResponse() { return answer }
            close(fd)
            fd = -1
        }
        return nil
    }

    private func connect() -> Int32 {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { return -1 }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(s); return -1 }
        }
        var addr = loopbackAddress(port: port)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(s); return -1 }
        return s
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    private func readResponse() -> (status: Int, body: [UInt8])? {
        var inbox: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let end = headEnd(inbox) {
                let head = String(decoding: inbox[..<end], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                guard let first = lines.first, let status = Int(first.split(separator: " ").dropFirst().first ?? "") else { return nil }
                let length = lines.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                let bodyStart = end + 4  // past the blank line
                if inbox.count - bodyStart >= length { return (status, Array(inbox[bodyStart..<(bodyStart + length)])) }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            inbox.append(contentsOf: buffer[..<n])
        }
    }
}

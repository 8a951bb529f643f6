import Foundation
import Glibc
import Synchronization

/// One keep-alive HTTP/1.1 connection that sends `POST /chat/message/send`
/// requests one at a time, each after the previous one was answered, on
/// non-blocking I/O driven by a poll loop. Not thread-safe (see LoadUser).
final class KeepAliveSender {
    /// The next send: its number and JSON body; nil when there is none.
    typealias Next = () -> (n: Int, body: [UInt8])?
    let fd: Int32
    private let head: String
    private let next: Next
    private var out: [UInt8] = []
    private var outSent = 0
    private(set) var awaiting = false
    private var exhausted = false
    private var inbox: [UInt8] = []
    private var current = 0
    /// Sends taken from `next` so far (the next one's number for the pacer).
    private var taken = 0
    private(set) var answered = 0
    /// When each send is due (unpaced by default: as soon as the previous one is answered).
    var pacer = Pacer()
    private(set) var failure: String?
    /// Called with a send's number when its request goes out / its answer came.
    var onSend: (Int) -> Void = { _ in }
    var onAnswer: (Int) -> Void = { _ in }

    init(port: Int, token: String, next: @escaping Next) throws {
        guard let fd = connectLoopback(port: port) else {
            throw IRCBenchError(description: "connect to tongban-server failed: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.next = next
        head = """
            POST /chat/message/send HTTP/1.1\r
            Host: 127.0.0.1:\(port)\r
            Authorization: Bearer \(token)\r
            Content-Type: application/json\r

            """
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Nothing in flight and nothing left to send (or failed).
    var done: Bool { failure != nil || (!awaiting && exhausted && outSent == out.count) }
    var wantsWrite: Bool {
        failure == nil && (outSent < out.count || (!awaiting && !exhausted && pacer.wait(taken, now: monotonicNanos()) == 0))
    }

    /// Waiting for the pacer (not for an answer or the socket): how long, as a poll timeout.
    func pollTimeout(cap: Int32) -> Int32 {
        guard failure == nil, !awaiting, !exhausted, outSent == out.count else { return cap }
        return pacer.pollTimeout(taken, now: monotonicNanos(), cap: cap)
    }

    /// Takes the next send once the previous one is answered and it is due,
    /// then writes what the socket takes.
    func pump() {
        if !awaiting && !exhausted && outSent == out.count && pacer.wait(taken, now: monotonicNanos()) == 0 {
            if let (n, body) = next() {
                taken += 1
                out = Array((head + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
                outSent = 0
                awaiting = true
                current = n
                onSend(n)
            } else {
                exhausted = true
            }
        }
        guard outSent < out.count else { return }
        let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + outSent, $0.count - outSent, Int32(MSG_NOSIGNAL)) }
        if n > 0 {
            outSent += n
        } else if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            failure = "send failed: \(String(cString: strerror(errno)))"
        }
    }

    /// Reads answers; a status other than 200 ends this connection's run.
    func pull(into buffer: inout [UInt8]) {
        guard recvAppend(fd, &buffer, to: &inbox, failure: &failure, what: "HTTP connection") else { return }
        while let end = headEnd(inbox) {
            let head = String(decoding: inbox[..<end], as: UTF8.self)
            var length = 0
            for line in head.split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "content-length" {
                    length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            let total = end + 4 + length
            guard inbox.count >= total else { return }
            guard head.hasPrefix("HTTP/1.1 200") else {
                failure = "send answered \(head.prefix(40)): \(String(decoding: inbox[(end + 4)..<total], as: UTF8.self).prefix(200))"
                return
            }
            inbox.removeSubrange(..<total)
            awaiting = false
            answered += 1
            onAnswer(current)
        }
    }

    /// The send body: fixed alphabets only (digits, ASCII, CJK, `-`), which
    /// need no JSON escaping.
    static func body(conversationId: String, text: String, clientMsgId: String) -> [UInt8] {
        Array("{\"recvID\":\"\(conversationId)\",\"content\":\"\(text)\",\"contentType\":101,\"clientMsgId\":\"\(clientMsgId)\"}".utf8)
    }
}

/// Where the blank line ending an HTTP head starts, if it came.
func headEnd(_ bytes: [UInt8]) -> Int? {
    indexAfter(blankLine, in: bytes[...]).map { $0 - blankLine.count }
}

private let blankLine: [UInt8] = [13, 10, 13, 10]

/// The index just past the first occurrence of `needle` in `haystack`.
func indexAfter(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    var i = haystack.startIndex
    let last = haystack.endIndex - needle.count
    while i <= last {
        if haystack[i] == needle[0] {
            var k = 1
            while k < needle.count, haystack[i + k] == needle[k] { k += 1 }
            if k == needle.count { return i + needle.count }
        }
        i += 1
    }
    return nil
}

/// One benchmark user of tongban-server on two raw loopback sockets, driven by
/// a poll loop like IRCBench's clients, so the load generator costs the two
/// shared cores as little as ngircd's does: a keep-alive HTTP/1.1 connection
/// for its sends (one at a time, each waiting for its acknowledgement) and a
/// WebSocket for the `sync` notices. Not thread-safe: it belongs to the main
/// thread during setup and after the run, and to exactly one worker thread in
/// between.
final class LoadUser {
    let index: Int
    let token: String
    let host: String
    let ws: Int32
    let messages: Int
    private(set) var http: KeepAliveSender!
    private var wsFailure: String?
    var failure: String? { wsFailure ?? http.failure }
    /// The run cannot go on for this user (its worker could not wait on its sockets).
    func fail(_ why: String) { wsFailure = wsFailure ?? why }

    /// Monotonic ns when message n was handed to send(); 0 = not sent.
    private(set) var sentAt: [UInt64]
    /// Monotonic ns when message n's acknowledgement was read; 0 = not yet.
    private(set) var answeredAt: [UInt64]

    // Notices.
    private var wsIn: [UInt8] = []
    private var wsOut: [UInt8] = []
    private var wsOutSent = 0
    /// `sync` notices in arrival order: the cursor each announced and when.
    private(set) var notices: [(cursor: Int, at: UInt64)] = []
    private(set) var heard = 0
    private(set) var saidHello = false
    /// Rooms: when each of the bench's messages came, pushed whole, by
    /// `roomKey` of its clientMsgID `b<sender>-<n>` (integers: a million
    /// frames a run, and a String key each cost the generator more than the frame).
    private(set) var roomArrivals: [Int: UInt64] = [:]

    static func roomKey(sender: Int, n: Int) -> Int { sender << 24 | n }

    init(index: Int, token: String, conversationId: String, port: Int, messages: Int, pacer: Pacer = Pacer()) throws {
        self.index = index
        self.token = token
        self.host = "127.0.0.1:\(port)"
        self.messages = messages
        sentAt = Array(repeating: 0, count: messages)
        answeredAt = Array(repeating: 0, count: messages)
        func connectWS() throws -> Int32 {
            guard let w = connectLoopback(port: port) else {
                throw IRCBenchError(description: "connect to tongban-server failed: \(String(cString: strerror(errno)))")
            }
            return w
        }
        // Every other user connects its HTTP connection first. Always the
        // WebSocket first, the server's event loops (which take connections
        // in turn) got every WebSocket on one loop and every HTTP connection
        // on the other: one loop wrote every room frame. Clients of a real
        // server do not arrive in such lockstep.
        let wsFirst = index % 2 == 0
        let early = wsFirst ? try connectWS() : -1
        var n = 0
        let sender = try KeepAliveSender(port: port, token: token) {
            guard n < messages else { return nil }
            defer { n += 1 }
            let text = n % 2 == 0 ? "你好世界 \(n)" : "hello world \(n)"
            return (n, KeepAliveSender.body(conversationId: conversationId, text: text, clientMsgId: "b\(index)-\(n)"))
        }
        ws = wsFirst ? early : try connectWS()
        http = sender
        http.pacer = pacer
        http.onSend = { [unowned self] n in sentAt[n] = monotonicNanos() }
        http.onAnswer = { [unowned self] n in answeredAt[n] = monotonicNanos() }
    }

    deinit { close(ws) }

    var failed: Bool { failure != nil }
    var sendsDone: Bool { http.done }

    // MARK: Setup (blocking)

    /// The WebSocket upgrade; bytes after the 101 head (the `hello`) are kept.
    func upgrade() throws {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try sendAll(ws, Array("""
            GET /chat/ws?token=\(token) HTTP/1.1\r
            Host: \(host)\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: \(key)\r
            Sec-WebSocket-Version: 13\r
            \r\n
            """.utf8))
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = headEnd(wsIn) {
                let head = String(decoding: wsIn[..<end], as: UTF8.self)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    throw IRCBenchError(description: "WebSocket upgrade refused: \(head.prefix(200))")
                }
                wsIn.removeSubrange(..<(end + 4))
                parseFrames(at: monotonicNanos())
                return
            }
            let n = chunk.withUnsafeMutableBytes { recv(ws, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw IRCBenchError(description: "no WebSocket upgrade answer within 10 s") }
            wsIn.append(contentsOf: chunk[..<n])
        }
    }

    /// Reads notices until the `hello` came (blocking).
    func waitForHello() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !saidHello {
            let n = chunk.withUnsafeMutableBytes { recv(ws, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw IRCBenchError(description: "no hello on the WebSocket within 10 s") }
            wsIn.append(contentsOf: chunk[..<n])
            parseFrames(at: monotonicNanos())
            if let wsFailure { throw IRCBenchError(description: wsFailure) }
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw IRCBenchError(description: "send to tongban-server failed: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    // MARK: Load phase (non-blocking, one worker thread)

    func beginLoad(at start: UInt64) {
        _ = fcntl(ws, F_SETFL, fcntl(ws, F_GETFL) | O_NONBLOCK)
        http.pacer.begin(at: start)
    }

    var wantsWSWrite: Bool { !failed && wsOutSent < wsOut.count }

    func pullWS(into buffer: inout [UInt8]) {
        guard recvAppend(ws, &buffer, to: &wsIn, failure: &wsFailure, what: "WebSocket connection") else { return }
        parseFrames(at: monotonicNanos())
    }

    func pumpWS() {
        guard wsOutSent < wsOut.count else { return }
        let n = wsOut.withUnsafeBytes { send(ws, $0.baseAddress! + wsOutSent, $0.count - wsOutSent, Int32(MSG_NOSIGNAL)) }
        if n > 0 {
            wsOutSent += n
            if wsOutSent == wsOut.count { wsOut.removeAll(keepingCapacity: true); wsOutSent = 0 }
        } else if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            wsFailure = "WebSocket send failed: \(String(cString: strerror(errno)))"
        }
    }

    /// Server frames (RFC 6455, unmasked): text frames are notices, pings
    /// are answered, a close ends the run.
    private func parseFrames(at now: UInt64) {
        var i = 0
        while wsIn.count - i >= 2 {
            let b0 = wsIn[i], b1 = wsIn[i + 1]
            var length = Int(b1 & 0x7F), header = 2
            if length == 126 {
                guard wsIn.count - i >= 4 else { break }
                length = Int(wsIn[i + 2]) << 8 | Int(wsIn[i + 3])
                header = 4
            } else if length == 127 {
                guard wsIn.count - i >= 10 else { break }
                length = (2..<10).reduce(0) { $0 << 8 | Int(wsIn[i + $1]) }
                header = 10
            }
            guard b1 & 0x80 == 0, b0 & 0x80 != 0, length < 1 << 20 else {
                wsFailure = "unexpected WebSocket frame from the server (masked, fragmented or huge)"
                return
            }
            guard wsIn.count - i >= header + length else { break }
            let payload = wsIn[(i + header)..<(i + header + length)]
            switch b0 & 0x0F {
            case 1: notice(payload, at: now)
            case 8: wsFailure = "the server closed the WebSocket"
            case 9: queueFrame(opcode: 0xA, payload: Array(payload))
            default: break
            }
            i += header + length
        }
        wsIn.removeSubrange(..<i)
    }

    /// `{"type":"sync","cursor":N}` (keys in any order); `hello` counts as connected.
    /// Byte-level, because Foundation's `String.range(of:)` here costs the
    /// load generator more CPU than anything but its sockets, and the
    /// generator shares the machine with the server it measures.
    private func notice(_ payload: ArraySlice<UInt8>, at now: UInt64) {
        if !saidHello, indexAfter(Self.helloType, in: payload) != nil { saidHello = true; return }
        if payload.count > 100, indexAfter(Self.roomType, in: payload) != nil {
            // A room's message, whole: `heard` counts the bench's own (`b<sender>-<n>`).
            guard var i = indexAfter(Self.benchID, in: payload) else { return }
            var sender = 0, n = 0
            while i < payload.endIndex, payload[i] >= 0x30, payload[i] <= 0x39 { sender = sender * 10 + Int(payload[i] - 0x30); i += 1 }
            guard i < payload.endIndex, payload[i] == 0x2D else { return }
            i += 1
            while i < payload.endIndex, payload[i] >= 0x30, payload[i] <= 0x39 { n = n * 10 + Int(payload[i] - 0x30); i += 1 }
            let key = Self.roomKey(sender: sender, n: n)
            if roomArrivals[key] == nil {
                roomArrivals[key] = now
                heard += 1
            }
            return
        }
        guard indexAfter(Self.syncType, in: payload) != nil, var i = indexAfter(Self.cursorKey, in: payload) else { return }
        var cursor = 0, digits = 0
        while i < payload.endIndex, payload[i] >= 0x30, payload[i] <= 0x39, digits < 18 {
            cursor = cursor * 10 + Int(payload[i] - 0x30)
            i += 1
            digits += 1
        }
        guard digits > 0 else { return }
        notices.append((cursor, now))
        heard = max(heard, cursor)
    }

    private static let helloType = Array(#""type":"hello""#.utf8)
    private static let syncType = Array(#""type":"sync""#.utf8)
    private static let roomType = Array(#""type":"room""#.utf8)
    private static let benchID = Array(#""clientMsgID":"b"#.utf8)
    private static let cursorKey = Array(#""cursor":"#.utf8)

    /// A client frame: masked, as RFC 6455 requires (payloads here are tiny).
    private func queueFrame(opcode: UInt8, payload: [UInt8]) {
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        wsOut.append(0x80 | opcode)
        wsOut.append(0x80 | UInt8(min(payload.count, 125)))
        wsOut.append(contentsOf: mask)
        for (k, byte) in payload.prefix(125).enumerated() { wsOut.append(byte ^ mask[k % 4]) }
    }
}

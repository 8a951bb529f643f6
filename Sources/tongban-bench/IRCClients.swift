import Foundation
import Glibc

// MARK: - Clients and workers

/// One IRC connection. Not thread-safe: it belongs to the main thread during setup and
/// after the run, and to exactly one worker thread in between.
final class IRCClient {
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
final class Worker: @unchecked Sendable {
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

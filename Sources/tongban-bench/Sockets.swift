import Foundation
import Glibc

// MARK: - Sockets and clock

func loopbackAddress(port: Int) -> sockaddr_in {
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port)).bigEndian
    addr.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
    return addr
}

/// A blocking TCP connection to 127.0.0.1:port with Nagle off, or nil.
func connectLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var addr = loopbackAddress(port: port)
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
        let saved = errno
        close(fd)
        errno = saved
        return nil
    }
    // One request per send(); Nagle would hold it back and inflate latency.
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    // Setup reads are blocking; a silent server must not hang the bench.
    var tv = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Set once by the main thread when the run times out; polled by the workers.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}


/// Runs each body on a thread of its own; the group is left when it returns.
func startThreads(_ bodies: [@Sendable () -> Void]) -> DispatchGroup {
    let done = DispatchGroup()
    for body in bodies {
        done.enter()
        Thread {
            body()
            done.leave()
        }.start()
    }
    return done
}

/// One non-blocking recv appended to `inbox`: true when bytes came; a closed
/// or failed connection is reported through `failure`.
func recvAppend(_ fd: Int32, _ buffer: inout [UInt8], to inbox: inout [UInt8], failure: inout String?, what: String) -> Bool {
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    if n == 0 { failure = "tongban-server closed the \(what)"; return false }
    if n < 0 {
        if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { failure = "recv failed: \(String(cString: strerror(errno)))" }
        return false
    }
    inbox.append(contentsOf: buffer[..<n])
    return true
}

/// When each of a load user's sends is due. Unpaced (interval 0): at once,
/// each still after the previous one went out (or was answered). Paced: send
/// n is due `offset + n·interval` after the load began; the users' offsets
/// spread over one interval, so the server sees a steady arrival rate rather
/// than bursts — the latency the server adds when it is not saturated.
struct Pacer: Sendable {
    var interval: UInt64 = 0
    var offset: UInt64 = 0
    var start: UInt64 = 0

    /// User `index` of `count`, one send every `intervalMs` ms.
    static func spread(index: Int, count: Int, intervalMs: Int) -> Pacer {
        guard intervalMs > 0, count > 0 else { return Pacer() }
        let interval = UInt64(intervalMs) * 1_000_000
        return Pacer(interval: interval, offset: interval * UInt64(index) / UInt64(count))
    }

    /// Starts the schedule (at the start of the load phase).
    mutating func begin(at now: UInt64) { start = now }

    /// Nanoseconds until send n is due; 0 when it is due.
    func wait(_ n: Int, now: UInt64) -> UInt64 {
        guard interval > 0 else { return 0 }
        let due = start &+ offset &+ UInt64(n) &* interval
        return due > now ? due - now : 0
    }

    /// A poll timeout (ms, rounded up) that wakes for send n, at most `cap`.
    func pollTimeout(_ n: Int, now: UInt64, cap: Int32) -> Int32 {
        let ns = wait(n, now: now)
        return Int32(min(UInt64(cap), (ns + 999_999) / 1_000_000))
    }
}

import CEpoll
import Foundation
import Glibc
import Synchronization

/// Drives a slice of the users on its own thread until `done` holds for all
/// of them (or the stop flag is set). @unchecked: see LoadUser.
final class LoadWorker: @unchecked Sendable {
    /// What the workers and the main thread share.
    final class Shared: Sendable {
        let stop = StopFlag()
        /// Users whose sends are all answered, across workers.
        let sendsDone = Atomic<Int>(0)
        /// The log end each user must hear, known once every send is answered.
        let expected = Mutex<[Int]?>(nil)
    }

    let users: [LoadUser]
    let shared: Shared

    init(users: [LoadUser], shared: Shared) {
        self.users = users
        self.shared = shared
    }

    func run() {
        let start = monotonicNanos()
        for u in users { u.beginLoad(at: start) }
        // epoll, not poll: a room's message wakes every socket of the worker
        // one after another, and poll() walked all of them on each wake-up
        // (the generator then cost more CPU per delivery than the server).
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard ep >= 0 else {
            let why = "epoll_create1: \(String(cString: strerror(errno)))"
            for u in users { u.fail(why) }
            return
        }
        defer { close(ep) }
        // Slot 2k is user k's HTTP connection, 2k+1 its WebSocket; what each is registered for.
        var registered = [UInt32?](repeating: nil, count: users.count * 2)
        func want(_ slot: Int, fd: Int32, _ events: UInt32?) {
            guard registered[slot] != events else { return }
            var ev = epoll_event()
            ev.events = events ?? 0
            ev.data.u64 = UInt64(slot)
            let op = events == nil ? EPOLL_CTL_DEL : registered[slot] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
            _ = epoll_ctl(ep, op, fd, &ev)
            registered[slot] = events
        }
        let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue, writable = EPOLLOUT.rawValue
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var counted = Array(repeating: false, count: users.count)
        while !shared.stop.isSet {
            let ends = shared.expected.withLock { $0 }
            var busy = false
            // A short timeout while the log ends are unknown (they come from
            // the main thread), and none longer than the next paced send.
            var timeout: Int32 = ends == nil ? 2 : 50
            for (k, u) in users.enumerated() {
                if u.sendsDone && !counted[k] {
                    counted[k] = true
                    shared.sendsDone.add(1, ordering: .releasing)
                }
                let finished = u.failed || (u.sendsDone && ends.map { u.heard >= $0[u.index] } == true)
                busy = busy || !finished
                if u.failed {
                    want(2 * k, fd: u.http.fd, nil)
                    want(2 * k + 1, fd: u.ws, nil)
                    continue
                }
                want(2 * k, fd: u.http.fd, readable | (u.http.wantsWrite ? writable : 0))
                want(2 * k + 1, fd: u.ws, readable | (u.wantsWSWrite ? writable : 0))
                timeout = min(timeout, u.http.pollTimeout(cap: timeout))
            }
            guard busy else { return }
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(ep, $0.baseAddress, Int32($0.count), timeout) }
            guard n > 0 else {
                for u in users where !u.failed && u.http.wantsWrite { u.http.pump() }
                continue
            }
            for e in events.prefix(Int(n)) {
                let slot = Int(e.data.u64), u = users[slot / 2]
                guard !u.failed else { continue }
                let input = e.events & (readable | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                if slot % 2 == 1 {
                    if input { u.pullWS(into: &buffer) }
                    if e.events & writable != 0 { u.pumpWS() }
                } else if input {
                    u.http.pull(into: &buffer)
                }
                if u.http.wantsWrite { u.http.pump() }
            }
        }
    }
}

import Synchronization

/// Holds calls to one endpoint of a `FakeChatAPI` until released, so a test
/// can look at what the client shows while a request is in flight.
public final class FakeGate: Sendable {
    private struct State {
        var open = false
        var arrived = 0
        var held: [CheckedContinuation<Void, Never>] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// How many calls have reached the gate so far.
    public var arrivals: Int { state.withLock { $0.arrived } }

    /// Returns once `count` calls in all have reached the gate.
    public func waitForArrivals(_ count: Int = 1) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.arrived >= count { return true }
                s.watchers.append((count, c))
                return false
            }
            if now { c.resume() }
        }
    }

    /// Lets the held calls go on, and every later one through.
    public func release() {
        let held = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.held = [] }
            return s.held
        }
        for c in held { c.resume() }
    }

    /// A call arrives: it waits here until the gate is released.
    func pass() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let (through, ready) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
                s.arrived += 1
                let arrived = s.arrived
                let ready = s.watchers.filter { $0.count <= arrived }.map(\.continuation)
                s.watchers.removeAll { $0.count <= arrived }
                if s.open { return (true, ready) }
                s.held.append(c)
                return (false, ready)
            }
            for r in ready { r.resume() }
            if through { c.resume() }
        }
    }
}

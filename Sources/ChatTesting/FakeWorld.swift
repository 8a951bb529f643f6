import ChatSync
import Synchronization

/// The server every view of one fake shares: its data under a lock, whether
/// it is down, and who listens for their log's growth.
final class FakeWorld: Sendable {
    let baseURL: String
    private let state: Mutex<FakeServerState>
    let down = Mutex(false)
    private let listeners = Mutex<[Int: [@Sendable (Int) -> Void]]>([:])

    init(baseURL: String) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        state = Mutex(FakeServerState(baseURL: base))
    }

    func read<T: Sendable>(_ body: (FakeServerState) -> T) -> T {
        state.withLock { body($0) }
    }

    /// Changes the server, then tells the users whose logs grew (outside the
    /// lock: a listener may call the fake again).
    @discardableResult
    func mutate<T: Sendable>(_ body: (inout FakeServerState) throws -> T) rethrows -> T {
        let (result, grown) = try state.withLock { s -> (T, [Int: Int]) in
            let result = try body(&s)
            var grown: [Int: Int] = [:]
            for uid in s.grownLogs { grown[uid] = s.logs[uid]?.last?.cursor ?? 0 }
            s.grownLogs = []
            return (result, grown)
        }
        guard !grown.isEmpty else { return result }
        let handlers = listeners.withLock { $0 }
        for (uid, cursor) in grown {
            for h in handlers[uid] ?? [] { h(cursor) }
        }
        return result
    }

    func listen(uid: Int, _ handler: @escaping @Sendable (Int) -> Void) {
        listeners.withLock { $0[uid, default: []].append(handler) }
    }
}

extension SendQueue.Policy {
    /// A send queue that tries again a millisecond or two after a transient
    /// failure: a test sees the next attempt without waiting.
    public static var retriesQuickly: Self {
        var policy = Self()
        policy.backoffBase = .milliseconds(1)
        policy.backoffCap = .milliseconds(2)
        return policy
    }
}

import Foundation
import Synchronization

/// Where the server reads the time: the system's, or a test's hand-moved
/// clock, so time-window rules (login throttling, revoke window, signed
/// URLs) are tested at exact instants instead of by sleeping.
public struct ServerClock: Sendable {
    let nowMs: @Sendable () -> Int

    public init(nowMs: @escaping @Sendable () -> Int) { self.nowMs = nowMs }

    public static let system = ServerClock { Int(Date().timeIntervalSince1970 * 1000) }
}

/// A clock that moves only when told to.
public final class ManualClock: Sendable {
    private let ms: Mutex<Int>

    public init(ms: Int) { self.ms = Mutex(ms) }

    public var nowMs: Int { ms.withLock { $0 } }
    public func advance(ms delta: Int) { ms.withLock { $0 += delta } }
    public var clock: ServerClock { ServerClock { [self] in self.nowMs } }
}

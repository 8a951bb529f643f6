/// When the terminal thread hands back the pages a busy spell mapped
/// (`ResidentPages.release`): once the client has been quiet (no frame, no
/// key) for `quiet` after the start, and after every later spell that drew
/// at least `busyFrames` frames. An idle client that redraws once a minute
/// is not busy; a start, a flood of messages or a user paging through a
/// chat is. Times are monotonic nanoseconds, passed in (tests use their own).
public struct PageReleasePolicy: Sendable, Equatable {
    public var quiet: UInt64
    public var busyFrames: Int
    /// Whether a release is due at the next quiet spell.
    public private(set) var armed = true
    private var framesSince = 0
    private var lastActivity: UInt64?

    public init(quiet: UInt64 = 1_000_000_000, busyFrames: Int = 20) {
        self.quiet = quiet
        self.busyFrames = busyFrames
    }

    public mutating func frameDrawn(at now: UInt64) {
        lastActivity = now
        framesSince += 1
        if framesSince >= busyFrames { armed = true }
    }

    public mutating func keyRead(at now: UInt64) {
        lastActivity = now
    }

    /// How long the terminal thread may sleep before a release is due, in
    /// whole milliseconds (rounded up); nil when none is due (nothing drawn
    /// yet, or released since the last busy spell).
    public func wait(now: UInt64) -> Int32? {
        guard armed, let last = lastActivity else { return nil }
        let elapsed = now &- last
        if elapsed >= quiet { return 0 }
        return Int32(min((quiet - elapsed + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    /// True when a release is due now; the caller releases, and the policy
    /// waits for the next busy spell.
    public mutating func takeDue(now: UInt64) -> Bool {
        guard wait(now: now) == 0 else { return false }
        armed = false
        framesSince = 0
        return true
    }
}

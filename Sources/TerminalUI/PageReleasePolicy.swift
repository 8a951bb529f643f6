/// When the terminal thread hands back the pages a busy spell mapped
/// (`ResidentPages.release`). The start is released three times: right
/// after its first frame, which drops what ran before `main`, parsed the
/// arguments, opened the store and laid out that frame (the client's peak
/// memory was this start and what followed it, added up); once it has been
/// quiet (no frame, no key) for `startQuiet`, for what connecting and the
/// first screens did, whatever was drawn meanwhile; and once more after the
/// next frame and a `quiet` spell, for what the start did once connected
/// (the first sync may come after that). After that, a release follows every
/// spell that drew at least `busyFrames` frames. An idle client that redraws
/// once a minute is not busy; a flood of messages or a user paging through a
/// chat is. Times are monotonic nanoseconds, passed in (tests use their own).
public struct PageReleasePolicy: Sendable, Equatable {
    public var quiet: UInt64
    public var startQuiet: UInt64
    public var busyFrames: Int
    /// Whether a release is due at the next quiet spell.
    public private(set) var armed = true
    private var releases = 0
    private var framesSince = 0
    private var lastActivity: UInt64?

    public init(quiet: UInt64 = 1_000_000_000, startQuiet: UInt64 = 250_000_000, busyFrames: Int = 20) {
        self.quiet = quiet
        self.startQuiet = startQuiet
        self.busyFrames = busyFrames
    }

    public mutating func frameDrawn(at now: UInt64) {
        lastActivity = now
        framesSince += 1
        if framesSince >= busyFrames || releases == 2 { armed = true }
    }

    public mutating func keyRead(at now: UInt64) {
        lastActivity = now
    }

    /// How long the terminal thread may sleep before a release is due, in
    /// whole milliseconds (rounded up); nil when none is due (nothing drawn
    /// yet, or released since the last busy spell).
    public func wait(now: UInt64) -> Int32? {
        guard armed, let last = lastActivity else { return nil }
        let spell = releases == 0 ? 0 : releases == 1 ? startQuiet : quiet
        let elapsed = now &- last
        if elapsed >= spell { return 0 }
        return Int32(min((spell - elapsed + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    /// True when a release is due now; the caller releases, and the policy
    /// waits for the next busy spell.
    public mutating func takeDue(now: UInt64) -> Bool {
        guard wait(now: now) == 0 else { return false }
        releases = min(releases + 1, 3)
        // The first frame's release is followed by the start's own.
        armed = releases == 1
        framesSince = 0
        return true
    }
}

/// The sync loop's pace: how often it polls, how it backs off, how notices
/// are gathered.
extension SyncEngine {
    public struct Timing: Sendable {
        public var pollOnline: Duration = .seconds(30)
        public var pollOffline: Duration = .seconds(3)
        public var backoffBase: Duration = .milliseconds(500)
        public var backoffCap: Duration = .seconds(30)
        /// Notices closer together than this share one pull: a flood of
        /// messages is fetched in pages, not one request per message. A
        /// notice after a quiet spell is pulled at once; in a burst a message
        /// waits at most this long, under the tenth of a second a reader
        /// takes for instant. Each pull has a fixed cost on the client
        /// (request, transaction, views, a frame), so a longer gap means
        /// fewer, larger pulls and less CPU in a flood, for a little more
        /// delay per message (figures in BENCHMARKS.md: 25 → 50 → 100 ms).
        public var noticeGap: Duration = .milliseconds(100)
        /// Without a working socket, a poll that brought something is
        /// followed by another this soon: a flood keeps arriving at the
        /// network's pace, not one page every `pollOffline`.
        public var pollBusy: Duration = .milliseconds(100)
        public init() {}

        /// How long the poll loop waits before its next pull.
        public func pollWait(pushUp: Bool, lastPullBrought: Bool) -> Duration {
            if pushUp { return pollOnline }
            return lastPullBrought ? pollBusy : pollOffline
        }
    }

    /// Capped exponential backoff with full jitter.
    static func backoff(attempt: Int, base: Duration, cap: Duration) -> Duration {
        let exp = base * (1 << min(attempt - 1, 16))
        let ceiling = min(exp, cap)
        let ms = Double(ceiling.components.seconds) * 1000 + Double(ceiling.components.attoseconds) / 1e15
        return .milliseconds(Int(ms / 2 + Double.random(in: 0...(ms / 2))))
    }
}

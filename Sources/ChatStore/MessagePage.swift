/// Which messages an open chat shows: the newest `count`, and, while the
/// reader is scrolled up, never less than everything from `keepFrom` on.
/// At the bottom the window slides as messages arrive (older ones drop out,
/// so a flood keeps it the same size); scrolled up it grows instead, so
/// what the reader is looking at stays in it.
public struct ChatWindow: Sendable, Hashable {
    public var count: Int
    public var keepFrom: Int?
    public init(count: Int, keepFrom: Int? = nil) {
        self.count = count; self.keepFrom = keepFrom
    }
}

/// One page of messages, oldest first, plus whether older ones exist locally.
public struct MessagePage: Sendable, Hashable {
    public var messages: [StoredMessage]
    /// The lowest seq on the page (nil for an empty page or only unsent rows).
    public var lowestSeq: Int?
    public init(messages: [StoredMessage], lowestSeq: Int?) {
        self.messages = messages; self.lowestSeq = lowestSeq
    }
}

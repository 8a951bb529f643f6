/// Local delivery state of a message (seed 000 `status`, seed 003).
public enum MessageStatus: String, Sendable, Codable, CaseIterable {
    case sending
    case success
    case failed

    /// The `errorReason` of a message that is still queued but waits behind
    /// a failed send of its conversation (it is sent once that one is
    /// retried or discarded).
    public static let heldReason = "held"
    /// The `errorReason` of a send the receiver refused (v3 `blocked`: they
    /// blocked the sender, or take friends only). It stays retryable.
    public static let blockedReason = "blocked"
}

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
    /// v4 `quota`: the message's upload was over the sender's daily upload
    /// quota. It stays retryable (the quota is a day's).
    public static let quotaReason = "quota"
    /// v4 `rate_limited`: the server asked the client to slow down; the
    /// message stays queued and goes at a later try.
    public static let rateLimitedReason = "rate_limited"

    /// A stored `errorReason` in the user's words: the v4 markers read as
    /// their refusal's words, any other reason as it was stored.
    public static func words(forReason reason: String, _ l: Localizer) -> String {
        switch reason {
        case quotaReason: l.string("error.quota")
        case rateLimitedReason: l.string("error.rateLimited")
        default: reason
        }
    }
}

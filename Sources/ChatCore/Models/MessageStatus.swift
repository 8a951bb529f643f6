/// Local delivery state of a message (seed 000 `status`, seed 003).
public enum MessageStatus: String, Sendable, Codable, CaseIterable {
    case sending
    case success
    case failed
}

/// The kinds of message a bubble can be (seed 000 §一).
public enum ChatMessageType: String, Sendable, Codable, CaseIterable {
    case text
    case image
    case flashImage
    case multiImage
    case voice
    case file
    case signalQuote
    case mention
    case groupNotice
    case flashViewed
    /// A revoke notice (contentType 2101); the revoked message itself keeps
    /// its own type and has `isRecalled` set.
    case revoked
    /// A UI-only time separator.
    case time
    case unknown
}

/// The kinds of message a bubble can be (seed 000 §一). A struct rather than
/// an enum so that a kind declared in its own file adds its type there
/// (`extension ChatMessageType { static let … }`) instead of here.
public struct ChatMessageType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let text = ChatMessageType(rawValue: "text")
    public static let image = ChatMessageType(rawValue: "image")
    public static let flashImage = ChatMessageType(rawValue: "flashImage")
    public static let multiImage = ChatMessageType(rawValue: "multiImage")
    public static let voice = ChatMessageType(rawValue: "voice")
    public static let signalQuote = ChatMessageType(rawValue: "signalQuote")
    public static let mention = ChatMessageType(rawValue: "mention")
    public static let groupNotice = ChatMessageType(rawValue: "groupNotice")
    public static let flashViewed = ChatMessageType(rawValue: "flashViewed")
    /// A revoke notice (contentType 2101); the revoked message itself keeps
    /// its own type and has `isRecalled` set.
    public static let revoked = ChatMessageType(rawValue: "revoked")
    /// A UI-only time separator.
    public static let time = ChatMessageType(rawValue: "time")
    public static let unknown = ChatMessageType(rawValue: "unknown")
}

/// What the server lets someone send (PROTOCOL.md "Messages"): each kind's
/// `validate`, behind one check of the wire form that every kind shares.
public struct ContentLimits: Sendable {
    public var maxTextCharacters: Int
    /// The most people one message may mention.
    public var maxMentions: Int
    public init(maxTextCharacters: Int, maxMentions: Int) {
        self.maxTextCharacters = maxTextCharacters; self.maxMentions = maxMentions
    }
}

/// Why a content may not be sent.
public enum ContentProblem: Error, Equatable, Sendable {
    /// Malformed, empty or not a kind anyone may send (400).
    case invalid(String)
    /// Over a size limit (413).
    case tooLarge(String)
}

extension ContentProblem {
    /// `text` holds something, within the limit (texts, mentions, replies);
    /// `empty` says what an empty one lacks.
    static func check(text: String, _ limits: ContentLimits, empty: String = "text must not be empty") -> ContentProblem? {
        if text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return .invalid(empty) }
        // A character has at least one byte: short texts skip the count.
        if text.utf8.count > limits.maxTextCharacters && text.count > limits.maxTextCharacters {
            return .tooLarge("text is longer than \(limits.maxTextCharacters) characters")
        }
        return nil
    }

    static func check(mentions: [String], _ limits: ContentLimits) -> ContentProblem? {
        mentions.count > limits.maxMentions ? .invalid("too many mentions") : nil
    }

    /// A kind only the server makes (notices).
    static func serverMade(_ what: String) -> @Sendable (MessageContent, ContentLimits) -> ContentProblem? {
        { _, _ in .invalid("\(what) are made by the server") }
    }
}

extension MessageKinds {
    /// The content of a message someone sends, decoded, or why it may not
    /// be sent: its wire form must decode as its kind (a custom payload of
    /// a type this server does not know is kept as it is, for newer
    /// clients), and its kind must accept it.
    public static func validate(contentType: Int, content: String, limits: ContentLimits) -> Result<MessageContent, ContentProblem> {
        let (type, decoded) = IMMessageMapper.decode(contentType: contentType, content: content)
        if contentType == ContentType.custom {
            guard let obj = JSONObject(jsonText: content), let t = obj.string("type"), !t.isEmpty else {
                return .failure(.invalid("content must be a JSON object with a string type"))
            }
            if kind(customType: t) != nil, decoded.unknown != nil {
                return .failure(.invalid("custom \(t) payload is missing fields or has wrong types"))
            }
            for key in ["w", "h"] where obj.double(key) != nil && obj.dimension(key) == nil {
                return .failure(.invalid("\(key) must be a picture size between 0 and 65535"))
            }
            if decoded.unknown != nil { return .success(decoded) }
        } else if type == .unknown {
            let shape = all.first { $0.contentType == contentType }?.wireShape
            return .failure(.invalid(shape ?? "unknown contentType \(contentType)"))
        }
        if let problem = kind(for: type).validate(decoded, limits) { return .failure(problem) }
        return .success(decoded)
    }
}

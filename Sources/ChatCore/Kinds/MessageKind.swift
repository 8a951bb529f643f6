/// One kind of message (seed 004): how its custom payload decodes and
/// encodes, and how it reads as a one-line summary. Each kind lives in its own
/// file and is listed once in ``MessageKinds/all``.
public struct MessageKind: Sendable {
    /// The custom payload's `type` (contentType 110), nil for built-in kinds.
    public let customType: String?
    /// A built-in kind's own contentType (101 text, 106 mention, …); nil
    /// for custom payloads and for notices, which span a range.
    public let contentType: Int?
    public let messageType: ChatMessageType
    /// Reads a custom payload; nil when a field it needs is missing or ill-typed.
    public let decode: @Sendable (JSONObject) -> MessageContent?
    /// The payload's fields, without `type`; nil for contents of another kind.
    public let encode: @Sendable (MessageContent) -> [String: JSONValue]?
    /// The one-line summary of a message of this kind (not recalled).
    public let summary: @Sendable (ChatMessage, Localizer) -> String
    /// The media objects a message of this kind refers to: the server lets
    /// a reader of the conversation fetch exactly these, and a sender may
    /// only name objects they uploaded. A kind that carries media must say so.
    public let objectKeys: @Sendable (MessageContent) -> [String]
    /// The file a message of this kind can be saved as (Enter, `o`,
    /// `tongban save`); nil for kinds that are not files.
    public let attachment: @Sendable (MessageContent) -> Attachment?
    /// What Enter on a message of this kind does (a UI carries it out).
    public let primaryAction: @Sendable (ChatMessage) -> MessageAction
    /// Whether `o` opens it in the system viewer or player.
    public let canOpenExternally: Bool
    /// The words the store's search index keeps for it ("" for none).
    public let searchText: @Sendable (MessageContent) -> String
    /// Whether it may only be sent between two people (the server refuses
    /// it in a group).
    public let singleChatOnly: Bool
    /// What may be done with a sent message of this kind. The rules about
    /// the message itself (mine, sent, not revoked, within a time window)
    /// are the caller's; these are the kind's, read by the client, the CLI
    /// and the server alike.
    public let capabilities: Capabilities
    /// A message of mine of this kind saying `text` instead (an edit): nil
    /// for kinds that cannot be edited. A mention keeps whom it named, a
    /// reply what it quotes.
    public let reword: (@Sendable (MessageContent, String) -> MessageContent)?
    /// What forwarding a message of this kind sends (when `forwardable`):
    /// by default the content as it is.
    public let forwardedForm: @Sendable (ChatMessage) -> MessageContent

    /// The server's check of a message of this kind that someone sends,
    /// once its content decoded: nil when it may be sent, else why not.
    public let validate: @Sendable (MessageContent, ContentLimits) -> ContentProblem?
    /// What its content must look like, for the refusal of one that does
    /// not decode (nil: the generic words).
    public let wireShape: String?

    /// Whether a message of mine of this kind can be edited.
    public var editable: Bool { reword != nil }

    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Sent on, one by one or inside a merged forward (聊天记录).
        public static let forwardable = Capabilities(rawValue: 1 << 0)
        /// Kept as a favourite (收藏).
        public static let keepable = Capabilities(rawValue: 1 << 1)
        /// Quoted by a reply.
        public static let quotable = Capabilities(rawValue: 1 << 2)
        public static let reactable = Capabilities(rawValue: 1 << 3)
        public static let revocable = Capabilities(rawValue: 1 << 4)
        /// Seen once and never kept: no cached copy, never forwarded or kept
        /// (a flash image).
        public static let ephemeral = Capabilities(rawValue: 1 << 5)
        /// What a message someone wrote allows.
        public static let written: Capabilities = [.forwardable, .keepable, .quotable, .reactable, .revocable]
    }

    public init(
        customType: String?, messageType: ChatMessageType, contentType: Int? = nil,
        decode: @escaping @Sendable (JSONObject) -> MessageContent? = { _ in nil },
        encode: @escaping @Sendable (MessageContent) -> [String: JSONValue]? = { _ in nil },
        summary: @escaping @Sendable (ChatMessage, Localizer) -> String,
        objectKeys: @escaping @Sendable (MessageContent) -> [String] = { _ in [] },
        attachment: @escaping @Sendable (MessageContent) -> Attachment? = { _ in nil },
        primaryAction: @escaping @Sendable (ChatMessage) -> MessageAction = { _ in .none },
        canOpenExternally: Bool = false,
        searchText: @escaping @Sendable (MessageContent) -> String = { _ in "" },
        singleChatOnly: Bool = false,
        capabilities: Capabilities = .written,
        reword: (@Sendable (MessageContent, String) -> MessageContent)? = nil,
        forwardedForm: @escaping @Sendable (ChatMessage) -> MessageContent = { $0.content },
        validate: @escaping @Sendable (MessageContent, ContentLimits) -> ContentProblem? = { _, _ in nil },
        wireShape: String? = nil
    ) {
        self.customType = customType
        self.contentType = contentType
        self.messageType = messageType
        self.decode = decode
        self.encode = encode
        self.summary = summary
        self.objectKeys = objectKeys
        self.attachment = attachment
        self.primaryAction = primaryAction
        self.canOpenExternally = canOpenExternally
        self.searchText = searchText
        self.singleChatOnly = singleChatOnly
        self.capabilities = capabilities
        self.reword = reword
        self.forwardedForm = forwardedForm
        self.validate = validate
        self.wireShape = wireShape
    }
}

/// A message's content as a file to save. `name` came over the network:
/// it reaches the disk only through `SafeFileName.base`.
public struct Attachment: Sendable, Hashable {
    public var object: StoredObject
    public var name: String
    public var size: Int
    public init(object: StoredObject, name: String, size: Int) {
        self.object = object; self.name = name; self.size = size
    }
}

/// What Enter does on a message, by its kind.
public enum MessageAction: Sendable, Equatable {
    case none
    /// Show its pictures full screen.
    case showPictures
    /// Ask first, then show it once (a flash image).
    case confirmFlash
    case play
    /// Save it into the downloads folder.
    case save
    /// Jump to the message a reply quotes.
    case showQuoted
    /// Show a merged forward's whole record.
    case showRecord
    /// Open the page of the person a card shares.
    case openProfile
}

/// The registry of every kind this client knows.
public enum MessageKinds {
    public static let all: [MessageKind] = [
        .text, .image, .flashImage, .multiImage, .audio, .file, .signalQuote, .card, .mention, .quote, .merged, .groupNotice,
        .flashViewed, .revokeNotice, .timeMarker, .sealed, .secretNotice, .unknown,
    ]

    private static let byCustomType: [String: MessageKind] = {
        var map: [String: MessageKind] = [:]
        for kind in all { if let t = kind.customType { map[t] = kind } }
        return map
    }()

    private static let byMessageType: [ChatMessageType: MessageKind] = {
        var map: [ChatMessageType: MessageKind] = [:]
        for kind in all { map[kind.messageType] = kind }
        return map
    }()

    public static func kind(customType: String) -> MessageKind? { byCustomType[customType] }

    public static func kind(for type: ChatMessageType) -> MessageKind {
        byMessageType[type] ?? .unknown
    }

    /// The kind `content` is of.
    public static func kind(of content: MessageContent) -> MessageKind { kind(for: content.messageType) }

    /// The kind of a message as it is on the wire (the server's stored rows).
    public static func kind(contentType: Int, content: String) -> MessageKind {
        kind(for: IMMessageMapper.decode(contentType: contentType, content: content).0)
    }

    /// The custom payload JSON (contentType 110) for `content`, with `type`
    /// first-class; nil for contents that are not custom payloads.
    public static func customPayloadJSON(for content: MessageContent) -> String? {
        for kind in all {
            guard let type = kind.customType, var fields = kind.encode(content) else { continue }
            fields["type"] = .string(type)
            return JSONObject(fields: fields).jsonText()
        }
        return nil
    }

    /// Every media object `content` refers to (see ``MessageKind/objectKeys``).
    public static func objectKeys(in content: MessageContent) -> [String] {
        all.flatMap { $0.objectKeys(content) }
    }

    /// The file `message` can be saved as; nil when it is not one or was revoked.
    public static func attachment(in message: ChatMessage) -> Attachment? {
        message.isRecalled ? nil : kind(for: message.type).attachment(message.content)
    }

    /// The words the search index keeps for a message (none once revoked).
    public static func searchText(type: ChatMessageType, content: MessageContent, revoked: Bool) -> String {
        revoked ? "" : kind(for: type).searchText(content)
    }

    /// The one-line summary used by the conversation list and notifications.
    public static func summary(of message: ChatMessage, localizer: Localizer) -> String {
        if message.isRecalled {
            return localizer.string(message.isMe ? "summary.revoked.mine" : "summary.revoked")
        }
        return kind(for: message.type).summary(message, localizer)
    }
}

extension ChatMessageType {
    public static let quote = ChatMessageType(rawValue: "quote")
}

extension ContentType {
    /// A reply that quotes another message (OpenIM's 114, PROTOCOL.md v3).
    public static let quote = 114
}

/// contentType 114: `{"text", "quote": {...}, "atUserIDs"?, "atAll"?}`. A
/// client sends the quote as `{"clientMsgID"}`; the server fills in the rest
/// from its own copy (`seq`, `sendID`, `contentType`, and `text` for a text,
/// mention or reply at most 100 characters, or `type` for a custom
/// payload) and blanks `text` (setting `revoked`) when the quoted message is
/// revoked.
public struct QuotePayload: KindPayload {
    public static let messageType = ChatMessageType.quote
    /// The longest quoted text the server keeps.
    public static let quotedTextLimit = 100

    public struct Quoted: Sendable, Hashable {
        public var clientMsgID: String
        public var seq: Int?
        public var sendID: String?
        public var contentType: Int?
        public var text: String?
        public var type: String?
        /// The quoted message was revoked since (a Tongban addition: its text is then blank).
        public var revoked: Bool
        public init(clientMsgID: String, seq: Int? = nil, sendID: String? = nil, contentType: Int? = nil,
                    text: String? = nil, type: String? = nil, revoked: Bool = false) {
            self.clientMsgID = clientMsgID; self.seq = seq; self.sendID = sendID; self.contentType = contentType
            self.text = text; self.type = type; self.revoked = revoked
        }
    }

    public var text: String
    public var quote: Quoted
    public var atUserIDs: [String]
    public var atAll: Bool

    public init(text: String, quote: Quoted, atUserIDs: [String] = [], atAll: Bool = false) {
        self.text = text; self.quote = quote; self.atUserIDs = atUserIDs; self.atAll = atAll
    }

    /// The reply's mentions, read as a 106 message's are.
    public var mention: MentionPayload? {
        atUserIDs.isEmpty && !atAll ? nil : MentionPayload(text: text, atUserIDs: atUserIDs, atAll: atAll)
    }

    public var ownWireForm: (contentType: Int, content: String)? { (ContentType.quote, jsonText) }

    public var jsonText: String {
        var q: [String: JSONValue] = ["clientMsgID": .string(quote.clientMsgID)]
        if let v = quote.seq { q["seq"] = .number(Double(v)) }
        if let v = quote.sendID { q["sendID"] = .string(v) }
        if let v = quote.contentType { q["contentType"] = .number(Double(v)) }
        if let v = quote.text { q["text"] = .string(v) }
        if let v = quote.type { q["type"] = .string(v) }
        if quote.revoked { q["revoked"] = .bool(true) }
        var fields: [String: JSONValue] = ["text": .string(text), "quote": .object(q)]
        if !atUserIDs.isEmpty { fields["atUserIDs"] = .array(atUserIDs.map { .string($0) }) }
        if atAll { fields["atAll"] = .bool(true) }
        return JSONObject(fields: fields).jsonText()
    }

    /// Reads the stored or sent form; nil when `text` or the quote's
    /// `clientMsgID` is missing, or a field has the wrong type.
    public init?(jsonText: String) {
        guard let obj = JSONObject(jsonText: jsonText), let text = obj.string("text"),
              case .object(let q)? = obj.fields["quote"] else { return nil }
        let quoted = JSONObject(fields: q)
        guard let id = quoted.nonEmpty("clientMsgID") else { return nil }
        var ids: [String] = []
        switch obj.fields["atUserIDs"] {
        case nil, .null?: break
        case .array?: guard let a = obj.stringArray("atUserIDs") else { return nil }; ids = a
        default: return nil
        }
        var all = false
        if case .bool(let b)? = obj.fields["atAll"] { all = b }
        var revoked = false
        if case .bool(let b)? = q["revoked"] { revoked = b }
        let seq = quoted.int("seq").flatMap { (0...WireRange.max).contains($0) ? $0 : nil }
        self.init(text: text, quote: Quoted(clientMsgID: id, seq: seq, sendID: quoted.string("sendID"),
                                            contentType: quoted.int("contentType"), text: quoted.string("text"),
                                            type: quoted.string("type"), revoked: revoked),
                  atUserIDs: ids, atAll: all)
    }
}

extension MessageContent {
    public static func quote(_ p: QuotePayload) -> MessageContent { MessageContent(p) }
    public var quote: QuotePayload? { payload(as: QuotePayload.self) }
}

extension MessageKind {
    /// contentType 114. Summary: the reply's text on one line (not the quote).
    public static let quote = MessageKind(
        customType: nil, messageType: .quote, contentType: ContentType.quote,
        summary: { msg, _ in MessageKind.flattenLines(msg.content.quote?.text ?? "") },
        primaryAction: { m in m.content.quote?.quote.seq != nil ? .showQuoted : .none },
        searchText: { content in content.quote?.text ?? "" },
        reword: { content, text in
            guard var p = content.quote else { return .text(text) }
            p.text = text
            return .quote(p)
        },
        // The quote belongs to the chat it came from.
        forwardedForm: { m in .text(m.content.quote?.text ?? "") },
        validate: { content, limits in
            guard let p = content.quote else { return .invalid("not a reply") }
            return ContentProblem.check(text: p.text, limits) ?? ContentProblem.check(mentions: p.atUserIDs, limits)
        },
        wireShape: #"a reply's content must be {"text", "quote": {"clientMsgID"}}"#
    )
}

extension MentionPayload {
    /// The mentions a message of `contentType` carries: a 106 message's, or
    /// a reply's (114) that names someone.
    public static func carried(contentType: Int, content: String) -> MentionPayload? {
        switch contentType {
        case ContentType.mention: MentionPayload(jsonText: content)
        case ContentType.quote: QuotePayload(jsonText: content)?.mention
        default: nil
        }
    }
}

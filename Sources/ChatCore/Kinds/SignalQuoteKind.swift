/// A reply to a signal (seed 000): the signal's text and the reply to it.
public struct SignalQuotePayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.signalQuote
    public var signalId: Int
    public var replyContent: String
    public var signalContent: String
    public init(signalId: Int, replyContent: String, signalContent: String) {
        self.signalId = signalId; self.replyContent = replyContent; self.signalContent = signalContent
    }
    public func mirror(into m: inout ChatMessage) {
        m.signalQuoteId = signalId
        m.signalQuoteContent = signalContent
        m.signalQuoteReply = replyContent
    }
}

extension MessageContent {
    public static func signalQuote(_ p: SignalQuotePayload) -> MessageContent { MessageContent(p) }
    public var signalQuote: SignalQuotePayload? { payload(as: SignalQuotePayload.self) }
}

extension MessageKind {
    /// `signal_quote`: signalId and replyContent (required), signalContent.
    /// Summary `[信号回复]`. Between two people only, as signals are.
    public static let signalQuote = MessageKind(
        customType: "signal_quote", messageType: .signalQuote,
        decode: { obj in
            guard let id = obj.int("signalId"), let reply = obj.string("replyContent") else { return nil }
            return .signalQuote(SignalQuotePayload(signalId: id, replyContent: reply, signalContent: obj.string("signalContent") ?? ""))
        },
        encode: { content in
            guard let p = content.signalQuote else { return nil }
            return ["signalId": .number(Double(p.signalId)), "replyContent": .string(p.replyContent),
                    "signalContent": .string(p.signalContent)]
        },
        summary: { _, l in l.string("summary.signalQuote") },
        searchText: { content in content.signalQuote?.replyContent ?? "" },
        singleChatOnly: true,
        validate: { content, limits in
            guard let p = content.signalQuote, p.replyContent.count > limits.maxTextCharacters else { return nil }
            return .tooLarge("reply is longer than \(limits.maxTextCharacters) characters")
        }
    )
}

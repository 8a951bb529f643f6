extension MessageKind {
    /// `signal_quote`: signalId and replyContent (required), signalContent.
    /// Summary `[信号回复]`.
    public static let signalQuote = MessageKind(
        customType: "signal_quote", messageType: .signalQuote,
        decode: { obj in
            guard let id = obj.int("signalId"), let reply = obj.string("replyContent") else { return nil }
            return .signalQuote(SignalQuotePayload(signalId: id, replyContent: reply, signalContent: obj.string("signalContent") ?? ""))
        },
        encode: { content in
            guard case .signalQuote(let p) = content else { return nil }
            return ["signalId": .number(Double(p.signalId)), "replyContent": .string(p.replyContent),
                    "signalContent": .string(p.signalContent)]
        },
        summary: { _, l in l.string("summary.signalQuote") }
    )
}

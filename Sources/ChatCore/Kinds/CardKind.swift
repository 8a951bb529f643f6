extension ChatMessageType {
    public static let card = ChatMessageType(rawValue: "card")
}

/// `card` (名片, PROTOCOL.md v4, seed 003): a person shared into a chat.
/// The sender names `userId`; the server fills the rest from its own copy,
/// so a card never says a name its person does not have.
public struct CardPayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.card
    /// `tb_5`.
    public var userId: String
    public var name: String
    public var account: String
    public var avatar: String
    public init(userId: String, name: String = "", account: String = "", avatar: String = "") {
        self.userId = userId; self.name = name; self.account = account; self.avatar = avatar
    }
    /// The card's person's uid; nil for a malformed `userId`.
    public var uid: Int? { ConversationIDHelper.uid(fromImUid: userId) }
    /// What clients that do not know cards show (seed 004's `msgDesc`).
    public var msgDesc: String { "[名片] " + name }
}

extension MessageContent {
    public static func card(_ p: CardPayload) -> MessageContent { MessageContent(p) }
    public var card: CardPayload? { payload(as: CardPayload.self) }
}

extension MessageKind {
    /// `card`: userId (required), name, account, avatar, msgDesc. Summary
    /// `[名片] name`; Enter opens the person's page. Its avatar is a
    /// profile picture anyone may read, not an object the sender grants.
    public static let card = MessageKind(
        customType: "card", messageType: .card,
        decode: { obj in
            guard let id = obj.nonEmpty("userId") else { return nil }
            return .card(CardPayload(userId: id, name: obj.string("name") ?? "", account: obj.string("account") ?? "",
                                     avatar: obj.string("avatar") ?? ""))
        },
        encode: { content in
            guard let p = content.card else { return nil }
            var fields: [String: JSONValue] = ["userId": .string(p.userId), "name": .string(p.name),
                                               "account": .string(p.account), "msgDesc": .string(p.msgDesc)]
            if !p.avatar.isEmpty { fields["avatar"] = .string(p.avatar) }
            return fields
        },
        summary: { m, l in
            let name = m.content.card?.name ?? ""
            return l.string("summary.card", ["name": MessageKind.flattenLines(TerminalSanitizer.sanitize(name))])
        },
        primaryAction: { _ in .openProfile },
        searchText: { content in content.card.map { $0.name + " " + $0.account } ?? "" },
        capabilities: [.forwardable, .keepable, .quotable, .reactable, .revocable],
        validate: { content, _ in
            guard let p = content.card, p.uid != nil else { return .invalid("a card's userId must be of the form tb_N") }
            return nil
        },
        wireShape: #"a card's content must be {"type": "card", "userId": "tb_N"}"#
    )
}

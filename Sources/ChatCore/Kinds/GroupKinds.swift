/// contentType 106 (PROTOCOL.md "Mentions"): a text that names members.
public struct MentionPayload: KindPayload {
    public static let messageType = ChatMessageType.mention
    public var text: String
    /// imUids.
    public var atUserIDs: [String]
    public var atAll: Bool
    public init(text: String, atUserIDs: [String], atAll: Bool = false) {
        self.text = text; self.atUserIDs = atUserIDs; self.atAll = atAll
    }

    public func mentions(_ imUid: String) -> Bool { atAll || atUserIDs.contains(imUid) }

    public var ownWireForm: (contentType: Int, content: String)? { (ContentType.mention, jsonText) }

    public var jsonText: String {
        JSONObject(fields: ["text": .string(text), "atUserIDs": .array(atUserIDs.map { .string($0) }),
                            "atAll": .bool(atAll)]).jsonText()
    }

    /// Reads `{"text","atUserIDs","atAll"}`; nil when `text` is missing or
    /// `atUserIDs` is not an array of strings.
    public init?(jsonText: String) {
        guard let obj = JSONObject(jsonText: jsonText), let text = obj.string("text") else { return nil }
        let ids: [String]
        switch obj.fields["atUserIDs"] {
        case nil, .null?: ids = []
        case .array?: guard let a = obj.stringArray("atUserIDs") else { return nil }; ids = a
        default: return nil
        }
        var all = false
        if case .bool(let b)? = obj.fields["atAll"] { all = b }
        self.init(text: text, atUserIDs: ids, atAll: all)
    }
}

/// A group's system notice (contentType 1501-1511), or a room's (1601-1605,
/// the same content): who did what to whom.
/// `userNames` (a Tongban addition the server fills in) holds the display
/// names at the time of the event, so a notice reads the same offline.
public struct GroupNoticePayload: KindPayload {
    public static let messageType = ChatMessageType.groupNotice
    public var contentType: Int
    public var opUser: String
    public var users: [String]
    public var name: String?
    public var notice: String?
    public var userNames: [String: String]

    public init(contentType: Int, opUser: String, users: [String] = [], name: String? = nil, notice: String? = nil,
                userNames: [String: String] = [:]) {
        self.contentType = contentType; self.opUser = opUser; self.users = users
        self.name = name; self.notice = notice; self.userNames = userNames
    }

    public init?(contentType: Int, jsonText: String) {
        guard ContentType.isGroupNotice(contentType) || ContentType.isRoomNotice(contentType),
              let obj = JSONObject(jsonText: jsonText) else { return nil }
        var names: [String: String] = [:]
        if case .object(let dict)? = obj.fields["userNames"] {
            for (k, v) in dict { if case .string(let s) = v { names[k] = s } }
        }
        self.init(contentType: contentType, opUser: obj.string("opUser") ?? "", users: obj.stringArray("users") ?? [],
                  name: obj.string("name"), notice: obj.string("notice"), userNames: names)
    }

    public var ownWireForm: (contentType: Int, content: String)? { (contentType, jsonText) }

    public var jsonText: String {
        var fields: [String: JSONValue] = ["opUser": .string(opUser), "users": .array(users.map { .string($0) })]
        if let name { fields["name"] = .string(name) }
        if let notice { fields["notice"] = .string(notice) }
        if !userNames.isEmpty { fields["userNames"] = .object(userNames.mapValues { .string($0) }) }
        return JSONObject(fields: fields).jsonText()
    }

    /// The line a timeline shows, e.g. `Alice 邀请 Bob、Carol 加入了群聊`.
    /// `me` is the reader's imUid: they read "你" for themselves.
    public func sentence(me: String?, _ l: Localizer) -> String {
        func display(_ id: String) -> String {
            if id == me { return l.string("group.you") }
            return MessageKind.flattenLines(userNames[id] ?? id)
        }
        let op = display(opUser)
        let who = users.map(display).joined(separator: l.string("group.listSeparator"))
        switch contentType {
        case ContentType.roomEntered: return l.string("room.notice.entered", ["op": op])
        case ContentType.roomLeft: return l.string("room.notice.left", ["op": op])
        case ContentType.roomKicked: return l.string("room.notice.kicked", ["op": op, "users": who])
        case ContentType.roomChanged: return l.string("room.notice.changed", ["op": op])
        case ContentType.roomDropped: return l.string("room.notice.dropped", ["op": op])
        case ContentType.groupCreated: return l.string("group.notice.created", ["op": op])
        case ContentType.groupInfoChanged:
            if let name { return l.string("group.notice.renamed", ["op": op, "name": MessageKind.flattenLines(name)]) }
            return l.string("group.notice.noticeChanged", ["op": op])
        case ContentType.memberLeft: return l.string("group.notice.left", ["users": who.isEmpty ? op : who])
        case ContentType.ownerChanged: return l.string("group.notice.owner", ["users": who])
        case ContentType.memberKicked: return l.string("group.notice.kicked", ["op": op, "users": who])
        case ContentType.memberInvited: return l.string("group.notice.invited", ["op": op, "users": who])
        case ContentType.memberJoined: return l.string("group.notice.joined", ["users": who.isEmpty ? op : who])
        case ContentType.groupDissolved: return l.string("group.notice.dissolved", ["op": op])
        default: return l.string("group.notice.changed")
        }
    }
}

extension MessageContent {
    public static func mention(_ p: MentionPayload) -> MessageContent { MessageContent(p) }
    public var mention: MentionPayload? { payload(as: MentionPayload.self) }

    public static func groupNotice(_ p: GroupNoticePayload) -> MessageContent { MessageContent(p) }
    public var groupNotice: GroupNoticePayload? { payload(as: GroupNoticePayload.self) }
}

extension MessageKind {
    /// contentType 106. Summary: its text on one line.
    public static let mention = MessageKind(
        customType: nil, messageType: .mention, contentType: ContentType.mention,
        summary: { msg, _ in MessageKind.flattenLines(msg.content.mention?.text ?? "") },
        searchText: { content in content.mention?.text ?? "" },
        reword: { content, text in
            guard let p = content.mention else { return .text(text) }
            return .mention(MentionPayload(text: text, atUserIDs: p.atUserIDs, atAll: p.atAll))
        },
        // The names belong to the chat it came from.
        forwardedForm: { m in .text(m.content.mention?.text ?? "") },
        validate: { content, limits in
            guard let p = content.mention else { return .invalid("not a mention") }
            return ContentProblem.check(text: p.text, limits) ?? ContentProblem.check(mentions: p.atUserIDs, limits)
        },
        wireShape: #"a mention's content must be {"text", "atUserIDs": [String], "atAll"}"#
    )

    /// contentType 1501-1511. Summary: the notice's sentence, as the sender
    /// of it reads it (the list has no reader's uid at hand).
    public static let groupNotice = MessageKind(
        customType: nil, messageType: .groupNotice,
        summary: { msg, l in msg.content.groupNotice?.sentence(me: msg.isMe ? msg.senderId : nil, l) ?? "" },
        capabilities: [],
        validate: ContentProblem.serverMade("notices")
    )
}

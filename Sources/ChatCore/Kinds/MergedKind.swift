extension ChatMessageType {
    public static let merged = ChatMessageType(rawValue: "merged")
}

extension ContentType {
    /// A merged forward, 聊天记录 (OpenIM's 107, PROTOCOL.md v3).
    public static let merged = 107
}

/// contentType 107: `{"title", "items": [...]}`. A client sends each item
/// as `{"conversationId", "clientMsgID"}`; the server fills in the rest from
/// its own copy (`sendID`, `senderName`, `contentType`, `content`, `sendTime`),
/// so a record cannot be forged.
public struct MergedPayload: KindPayload {
    public static let messageType = ChatMessageType.merged
    public static let maxItems = 100

    public struct Item: Sendable, Hashable {
        public var conversationId: String
        public var clientMsgID: String
        public var sendID: String?
        public var senderName: String?
        public var contentType: Int?
        public var content: String?
        public var sendTime: Int?
        public init(conversationId: String, clientMsgID: String, sendID: String? = nil, senderName: String? = nil,
                    contentType: Int? = nil, content: String? = nil, sendTime: Int? = nil) {
            self.conversationId = conversationId; self.clientMsgID = clientMsgID; self.sendID = sendID
            self.senderName = senderName; self.contentType = contentType; self.content = content; self.sendTime = sendTime
        }

        /// The item as a message (for its summary, its bubble, its objects); nil until filled in.
        public func message(currentUID: String) -> ChatMessage? {
            guard let contentType, let content, let sendID else { return nil }
            return IMMessageMapper.map(WireMessage(serverMsgID: "", clientMsgID: clientMsgID, conversationId: conversationId, seq: 0,
                                                   sendID: sendID, recvID: "", contentType: contentType, content: content,
                                                   sendTime: sendTime ?? 0), currentUID: currentUID)
        }
    }

    public var title: String
    public var items: [Item]

    public init(title: String, items: [Item]) { self.title = title; self.items = items }

    public var ownWireForm: (contentType: Int, content: String)? { (ContentType.merged, jsonText) }

    public var jsonText: String {
        let list: [JSONValue] = items.map { i in
            var f: [String: JSONValue] = ["conversationId": .string(i.conversationId), "clientMsgID": .string(i.clientMsgID)]
            if let v = i.sendID { f["sendID"] = .string(v) }
            if let v = i.senderName { f["senderName"] = .string(v) }
            if let v = i.contentType { f["contentType"] = .number(Double(v)) }
            if let v = i.content { f["content"] = .string(v) }
            if let v = i.sendTime { f["sendTime"] = .number(Double(v)) }
            return .object(f)
        }
        return JSONObject(fields: ["title": .string(title), "items": .array(list)]).jsonText()
    }

    /// Reads the stored or sent form; nil when `title` or an item's ids are missing.
    public init?(jsonText: String) {
        guard let obj = JSONObject(jsonText: jsonText), let title = obj.string("title"),
              case .array(let list)? = obj.fields["items"] else { return nil }
        var items: [Item] = []
        for value in list {
            guard case .object(let f) = value else { return nil }
            let o = JSONObject(fields: f)
            guard let conv = o.nonEmpty("conversationId"), let id = o.nonEmpty("clientMsgID") else { return nil }
            items.append(Item(conversationId: conv, clientMsgID: id, sendID: o.string("sendID"), senderName: o.string("senderName"),
                              contentType: o.int("contentType"), content: o.string("content"),
                              sendTime: o.int("sendTime").map(WireRange.clamp)))
        }
        self.init(title: title, items: items)
    }
}

extension MessageContent {
    public static func merged(_ p: MergedPayload) -> MessageContent { MessageContent(p) }
    public var merged: MergedPayload? { payload(as: MergedPayload.self) }
}

extension MessageKind {
    /// contentType 107. Summary `[聊天记录] title`; found by its title;
    /// Enter opens the whole record. The objects of its items (pictures,
    /// files) are its own: the chat it goes to may read them.
    public static let merged = MessageKind(
        customType: nil, messageType: .merged, contentType: ContentType.merged,
        summary: { msg, l in
            l.string("summary.merged", ["title": MessageKind.flattenLines(msg.content.merged?.title ?? "")])
        },
        objectKeys: { content in
            content.merged?.items.flatMap { item -> [String] in
                guard let type = item.contentType, let body = item.content, type != ContentType.merged else { return [] }
                return MessageKinds.objectKeys(in: IMMessageMapper.decode(contentType: type, content: body).1)
            } ?? []
        },
        primaryAction: { _ in .showRecord },
        searchText: { content in content.merged?.title ?? "" },
        // Its messages are of chats the receiver may not be in: a record of
        // itself, which the server fills in whole.
        forwardedForm: { m in
            .merged(MergedPayload(title: m.content.merged?.title ?? "", items: [.init(conversationId: m.conversationId, clientMsgID: m.id)]))
        },
        validate: { content, _ in
            guard let p = content.merged else { return .invalid("not a merged forward") }
            guard (1...MergedPayload.maxItems).contains(p.items.count) else {
                return .invalid("a merged forward holds 1-\(MergedPayload.maxItems) messages")
            }
            return p.title.count <= 200 ? nil : .invalid("the title is longer than 200 characters")
        },
        wireShape: #"a merged forward's content must be {"title", "items": [{"conversationId", "clientMsgID"}]}"#
    )
}

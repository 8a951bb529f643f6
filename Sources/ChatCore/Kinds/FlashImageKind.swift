public struct FlashImagePayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.flashImage
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public init(objectKey: String, url: String = "", expireAt: Int = 0) {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt
    }
    public var storedObject: StoredObject? { StoredObject(key: objectKey, url: url, expireAt: expireAt) }
    public func mirror(into m: inout ChatMessage) {
        storedObject?.mirror(into: &m)
    }
}

extension MessageContent {
    public static func flashImage(_ p: FlashImagePayload) -> MessageContent { MessageContent(p) }
    public var flashImage: FlashImagePayload? { payload(as: FlashImagePayload.self) }
}

extension MessageKind {
    /// `flash_image`: objectKey (required), url, expireAt. Summary `[闪照]`.
    /// Between two people only: a group has no one "receiver" to view it once.
    public static let flashImage = MessageKind(
        customType: "flash_image", messageType: .flashImage,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey") else { return nil }
            return .flashImage(FlashImagePayload(objectKey: key, url: obj.string("url") ?? "", expireAt: obj.int("expireAt") ?? 0))
        },
        encode: { content in
            guard let p = content.flashImage else { return nil }
            return ["objectKey": .string(p.objectKey), "url": .string(p.url), "expireAt": .number(Double(p.expireAt))]
        },
        summary: { _, l in l.string("summary.flashImage") },
        objectKeys: { content in content.flashImage.map { [$0.objectKey] } ?? [] },
        // Only the receiver views it, once; nobody saves or opens it.
        primaryAction: { m in !m.isMe && !m.isDestroyed ? .confirmFlash : .none },
        singleChatOnly: true,
        capabilities: [.quotable, .reactable, .revocable, .ephemeral]
    )
}

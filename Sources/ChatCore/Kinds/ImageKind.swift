public struct ImagePayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.image
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public var w: Double?
    public var h: Double?
    public init(objectKey: String, url: String = "", expireAt: Int = 0, w: Double? = nil, h: Double? = nil) {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt; self.w = w; self.h = h
    }
    public var storedObject: StoredObject? { StoredObject(key: objectKey, url: url, expireAt: expireAt) }
    public func mirror(into m: inout ChatMessage) {
        storedObject?.mirror(into: &m)
        m.width = w
        m.height = h
    }
}

extension MessageContent {
    public static func image(_ p: ImagePayload) -> MessageContent { MessageContent(p) }
    public var image: ImagePayload? { payload(as: ImagePayload.self) }
}

extension MessageKind {
    /// `image`: objectKey (required), url, expireAt, w, h. Summary `[图片]`.
    public static let image = MessageKind(
        customType: "image", messageType: .image,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey") else { return nil }
            return .image(ImagePayload(objectKey: key, url: obj.string("url") ?? "",
                                       expireAt: obj.int("expireAt") ?? 0, w: obj.dimension("w"), h: obj.dimension("h")))
        },
        encode: { content in
            guard let p = content.image else { return nil }
            var f: [String: JSONValue] = ["objectKey": .string(p.objectKey), "url": .string(p.url),
                                          "expireAt": .number(Double(p.expireAt))]
            if let w = p.w { f["w"] = .number(w) }
            if let h = p.h { f["h"] = .number(h) }
            return f
        },
        summary: { _, l in l.string("summary.image") },
        objectKeys: { content in content.image.map { [$0.objectKey] } ?? [] },
        primaryAction: { _ in .showPictures },
        canOpenExternally: true
    )
}

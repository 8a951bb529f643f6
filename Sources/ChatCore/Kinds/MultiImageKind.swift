public struct MultiImagePayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.multiImage
    public var multiObjectKeys: [String]
    public var multiUrls: [String]
    public var expireAt: Int
    public init(multiObjectKeys: [String], multiUrls: [String] = [], expireAt: Int = 0) {
        self.multiObjectKeys = multiObjectKeys; self.multiUrls = multiUrls; self.expireAt = expireAt
    }
    public func mirror(into m: inout ChatMessage) {
        m.multiObjectKeys = multiObjectKeys
        m.multiImageUrls = multiUrls
        m.objectKey = multiObjectKeys.first
        m.urlExpireAt = expireAt
    }
}

extension MessageContent {
    public static func multiImage(_ p: MultiImagePayload) -> MessageContent { MessageContent(p) }
    public var multiImage: MultiImagePayload? { payload(as: MultiImagePayload.self) }
}

extension MessageKind {
    /// `multi_image`: multiObjectKeys (required, non-empty), multiUrls, expireAt.
    /// Summary `[图片]`.
    public static let multiImage = MessageKind(
        customType: "multi_image", messageType: .multiImage,
        decode: { obj in
            guard let keys = obj.stringArray("multiObjectKeys"), !keys.isEmpty else { return nil }
            return .multiImage(MultiImagePayload(multiObjectKeys: keys, multiUrls: obj.stringArray("multiUrls") ?? [],
                                                 expireAt: obj.int("expireAt") ?? 0))
        },
        encode: { content in
            guard let p = content.multiImage else { return nil }
            return ["multiObjectKeys": .array(p.multiObjectKeys.map { .string($0) }),
                    "multiUrls": .array(p.multiUrls.map { .string($0) }),
                    "expireAt": .number(Double(p.expireAt))]
        },
        summary: { _, l in l.string("summary.image") },
        objectKeys: { content in content.multiImage?.multiObjectKeys ?? [] },
        primaryAction: { _ in .showPictures },
        canOpenExternally: true
    )
}

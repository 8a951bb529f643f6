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
            guard case .multiImage(let p) = content else { return nil }
            return ["multiObjectKeys": .array(p.multiObjectKeys.map { .string($0) }),
                    "multiUrls": .array(p.multiUrls.map { .string($0) }),
                    "expireAt": .number(Double(p.expireAt))]
        },
        summary: { _, l in l.string("summary.image") },
        objectKeys: { content in if case .multiImage(let p) = content { p.multiObjectKeys } else { [] } },
        primaryAction: { _ in .showPictures },
        canOpenExternally: true
    )
}

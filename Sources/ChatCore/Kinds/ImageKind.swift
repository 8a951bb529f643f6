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
            guard case .image(let p) = content else { return nil }
            var f: [String: JSONValue] = ["objectKey": .string(p.objectKey), "url": .string(p.url),
                                          "expireAt": .number(Double(p.expireAt))]
            if let w = p.w { f["w"] = .number(w) }
            if let h = p.h { f["h"] = .number(h) }
            return f
        },
        summary: { _, l in l.string("summary.image") },
        objectKeys: { content in if case .image(let p) = content { [p.objectKey] } else { [] } },
        primaryAction: { _ in .showPictures },
        canOpenExternally: true
    )
}

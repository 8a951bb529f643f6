extension MessageKind {
    /// `flash_image`: objectKey (required), url, expireAt. Summary `[闪照]`.
    public static let flashImage = MessageKind(
        customType: "flash_image", messageType: .flashImage,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey") else { return nil }
            return .flashImage(FlashImagePayload(objectKey: key, url: obj.string("url") ?? "", expireAt: obj.int("expireAt") ?? 0))
        },
        encode: { content in
            guard case .flashImage(let p) = content else { return nil }
            return ["objectKey": .string(p.objectKey), "url": .string(p.url), "expireAt": .number(Double(p.expireAt))]
        },
        summary: { _, l in l.string("summary.flashImage") },
        objectKeys: { content in if case .flashImage(let p) = content { [p.objectKey] } else { [] } },
        // Only the receiver views it, once; nobody saves or opens it.
        primaryAction: { m in !m.isMe && !m.isDestroyed ? .confirmFlash : .none }
    )
}

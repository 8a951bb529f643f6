extension MessageKind {
    /// `audio`: objectKey and durationSec (required), url, expireAt. Summary `[语音]`.
    public static let audio = MessageKind(
        customType: "audio", messageType: .voice,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey"), let dur = obj.int("durationSec"), dur >= 0 else { return nil }
            return .audio(AudioPayload(objectKey: key, url: obj.string("url") ?? "", expireAt: obj.int("expireAt") ?? 0, durationSec: dur))
        },
        encode: { content in
            guard case .audio(let p) = content else { return nil }
            return ["objectKey": .string(p.objectKey), "url": .string(p.url),
                    "expireAt": .number(Double(p.expireAt)), "durationSec": .number(Double(p.durationSec))]
        },
        summary: { _, l in l.string("summary.voice") },
        objectKeys: { content in if case .audio(let p) = content { [p.objectKey] } else { [] } },
        primaryAction: { _ in .play },
        canOpenExternally: true
    )
}

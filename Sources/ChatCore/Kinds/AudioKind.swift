public struct AudioPayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.voice
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public var durationSec: Int
    public init(objectKey: String, url: String = "", expireAt: Int = 0, durationSec: Int) {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt; self.durationSec = durationSec
    }
    public var storedObject: StoredObject? { StoredObject(key: objectKey, url: url, expireAt: expireAt) }
    public func mirror(into m: inout ChatMessage) {
        storedObject?.mirror(into: &m)
        m.durationSec = durationSec
    }
}

extension MessageContent {
    public static func audio(_ p: AudioPayload) -> MessageContent { MessageContent(p) }
    public var audio: AudioPayload? { payload(as: AudioPayload.self) }
}

extension MessageKind {
    /// `audio`: objectKey and durationSec (required), url, expireAt. Summary `[语音]`.
    public static let audio = MessageKind(
        customType: "audio", messageType: .voice,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey"), let dur = obj.int("durationSec"), dur >= 0 else { return nil }
            return .audio(AudioPayload(objectKey: key, url: obj.string("url") ?? "", expireAt: obj.int("expireAt") ?? 0, durationSec: dur))
        },
        encode: { content in
            guard let p = content.audio else { return nil }
            return ["objectKey": .string(p.objectKey), "url": .string(p.url),
                    "expireAt": .number(Double(p.expireAt)), "durationSec": .number(Double(p.durationSec))]
        },
        summary: { _, l in l.string("summary.voice") },
        objectKeys: { content in content.audio.map { [$0.objectKey] } ?? [] },
        primaryAction: { _ in .play },
        canOpenExternally: true
    )
}

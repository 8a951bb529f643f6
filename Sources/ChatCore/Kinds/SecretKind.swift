/// contentType 300 as this device keeps it (PROTOCOL.md v4 "Secret chats"):
/// a secret message it opened is stored as what was inside (101, 110,
/// 114...); what stays 300 is one it could not open, or one of its own
/// notices about the chat.
public struct SealedPayload: KindPayload {
    public static let messageType = ChatMessageType.sealed
    public init() {}
}

/// A line a secret chat shows about itself, made on this device.
public struct SecretNoticePayload: KindPayload {
    public static let messageType = ChatMessageType.secretNotice
    public enum Notice: String, Sendable, Hashable {
        /// Secret messages sent before this device had keys.
        case beforeThisDevice = "before_device"
        /// The peer's devices (and so the safety number) changed.
        case safetyChanged = "safety_changed"
        /// Someone set the disappearing-message timer.
        case timer
    }
    public var notice: Notice
    /// Who it is about (safety number), or who set the timer ("" for me).
    public var name: String
    public var seconds: Int
    public init(_ notice: Notice, name: String = "", seconds: Int = 0) {
        self.notice = notice; self.name = name; self.seconds = seconds
    }

    /// The local content a row of this notice keeps.
    public var jsonText: String {
        JSONObject(fields: ["local": .string(notice.rawValue), "name": .string(name), "seconds": .number(Double(seconds))]).jsonText()
    }

    public init?(jsonText: String) {
        guard let obj = JSONObject(jsonText: jsonText), let raw = obj.string("local"), let notice = Notice(rawValue: raw) else {
            return nil
        }
        self.init(notice, name: obj.string("name") ?? "", seconds: obj.int("seconds") ?? 0)
    }

    /// The words of a disappearing-message timer: off, 30 s, 5 min, 1 h, 1 d.
    public static func timerWords(_ seconds: Int, _ l: Localizer) -> String {
        switch seconds {
        case ...0: l.string("secret.timer.off")
        case ..<60: l.string("secret.timer.seconds", ["n": String(seconds)])
        case ..<3600: l.string("secret.timer.minutes", ["n": String(seconds / 60)])
        case ..<86400: l.string("secret.timer.hours", ["n": String(seconds / 3600)])
        default: l.string("secret.timer.days", ["n": String(seconds / 86400)])
        }
    }

    public func sentence(_ l: Localizer) -> String {
        switch notice {
        case .beforeThisDevice: l.string("secret.notice.beforeDevice")
        case .safetyChanged: l.string("secret.notice.safetyChanged", ["name": name])
        case .timer where name.isEmpty: l.string("secret.notice.timer.mine", ["timer": Self.timerWords(seconds, l)])
        case .timer: l.string("secret.notice.timer", ["name": name, "timer": Self.timerWords(seconds, l)])
        }
    }
}

extension ChatMessageType {
    /// A secret message this device could not open.
    public static let sealed = ChatMessageType(rawValue: "sealed")
    /// A secret chat's own notice line.
    public static let secretNotice = ChatMessageType(rawValue: "secretNotice")
}

extension MessageContent {
    public var sealed: SealedPayload? { payload(as: SealedPayload.self) }
    public var secretNotice: SecretNoticePayload? { payload(as: SecretNoticePayload.self) }

    /// contentType 300 as stored: a notice of this device's, else ciphertext it could not open.
    static func secret(_ content: String) -> MessageContent {
        if let notice = SecretNoticePayload(jsonText: content) { return MessageContent(notice) }
        return MessageContent(SealedPayload())
    }
}

extension MessageKind {
    /// `无法解密这条消息` until the sender's device seals it again.
    /// Revocable: the server sees every secret message as this kind, and its
    /// sender may take it back as in an open chat.
    public static let sealed = MessageKind(
        customType: nil, messageType: .sealed, contentType: SecretWire.contentType,
        summary: { _, l in l.string("secret.undecryptable") },
        capabilities: [.revocable],
        validate: { _, _ in .invalid("a secret message is sealed by the client") }
    )

    public static let secretNotice = MessageKind(
        customType: nil, messageType: .secretNotice,
        summary: { msg, l in msg.content.secretNotice?.sentence(l) ?? "" },
        capabilities: [],
        validate: { _, _ in .invalid("a secret chat's notices are the client's own") }
    )
}

/// The typed payload of a message, one case per kind, replacing the seed's
/// `content: Any`.
public enum MessageContent: Sendable, Hashable {
    case text(String)
    case image(ImagePayload)
    case flashImage(FlashImagePayload)
    case multiImage(MultiImagePayload)
    case audio(AudioPayload)
    /// A kind that declares its payload in its own `Kinds/` file (see
    /// ``KindPayload``) and so needs no case here.
    case payload(AnyKindPayload)
    case signalQuote(SignalQuotePayload)
    /// contentType 106: a text mentioning members.
    case mention(MentionPayload)
    /// contentType 1501-1510: a group's system notice.
    case groupNotice(GroupNoticePayload)
    /// `flash_viewed`: the viewed flash image's clientMsgID.
    case flashViewed(targetClientMsgID: String)
    /// A revoke notice (2101): the revoked message's clientMsgID.
    case revokeNotice(targetClientMsgID: String)
    /// A UI time separator's text, e.g. `11-22 09:30`.
    case timeMarker(String)
    /// Anything this client cannot read: kept verbatim so nothing is lost.
    case unknown(UnknownPayload)
}

/// The payload of a kind declared in its own file. `storedObject` is the
/// one server object it carries, if any, mirrored into the message's media
/// fields (`objectKey`, the signed URL and its expiry).
public protocol KindPayload: Sendable, Hashable {
    var storedObject: StoredObject? { get }
}

/// One object in the server's store, as a payload refers to it.
public struct StoredObject: Sendable, Hashable {
    public var key: String
    public var url: String
    public var expireAt: Int
    public init(key: String, url: String, expireAt: Int) {
        self.key = key; self.url = url; self.expireAt = expireAt
    }
}

/// A ``KindPayload`` of any kind, compared and hashed as the payload itself.
public struct AnyKindPayload: Sendable, Hashable {
    public let base: any KindPayload
    public init(_ base: some KindPayload) { self.base = base }
    public static func == (a: AnyKindPayload, b: AnyKindPayload) -> Bool { AnyHashable(a.base) == AnyHashable(b.base) }
    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }
}

extension MessageContent {
    /// The content holding a payload declared by its kind.
    public init(_ payload: some KindPayload) { self = .payload(AnyKindPayload(payload)) }

    /// This content's payload when it is a `P`.
    public func payload<P: KindPayload>(as type: P.Type) -> P? {
        if case .payload(let p) = self { p.base as? P } else { nil }
    }
}

public struct ImagePayload: Sendable, Hashable, Codable {
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public var w: Double?
    public var h: Double?
    public init(objectKey: String, url: String = "", expireAt: Int = 0, w: Double? = nil, h: Double? = nil) {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt; self.w = w; self.h = h
    }
}

public struct FlashImagePayload: Sendable, Hashable, Codable {
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public init(objectKey: String, url: String = "", expireAt: Int = 0) {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt
    }
}

public struct MultiImagePayload: Sendable, Hashable, Codable {
    public var multiObjectKeys: [String]
    public var multiUrls: [String]
    public var expireAt: Int
    public init(multiObjectKeys: [String], multiUrls: [String] = [], expireAt: Int = 0) {
        self.multiObjectKeys = multiObjectKeys; self.multiUrls = multiUrls; self.expireAt = expireAt
    }
}

public struct AudioPayload: Sendable, Hashable, Codable {
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public var durationSec: Int
    public init(objectKey: String, url: String = "", expireAt: Int = 0, durationSec: Int) {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt; self.durationSec = durationSec
    }
}

public struct SignalQuotePayload: Sendable, Hashable, Codable {
    public var signalId: Int
    public var replyContent: String
    public var signalContent: String
    public init(signalId: Int, replyContent: String, signalContent: String) {
        self.signalId = signalId; self.replyContent = replyContent; self.signalContent = signalContent
    }
}

/// A message this client does not understand. `raw` is the wire `content`
/// exactly as received; `customType` and `msgDesc` are read from it when it
/// is a JSON object (seed 004: show `msgDesc` for unknown types).
public struct UnknownPayload: Sendable, Hashable {
    public var contentType: Int
    public var raw: String
    public var customType: String?
    public var msgDesc: String?
    public init(contentType: Int, raw: String, customType: String? = nil, msgDesc: String? = nil) {
        self.contentType = contentType; self.raw = raw; self.customType = customType; self.msgDesc = msgDesc
    }
}

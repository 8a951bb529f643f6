/// The typed payload of a message, one case per kind, replacing the seed's
/// `content: Any`.
public enum MessageContent: Sendable, Hashable {
    case text(String)
    case image(ImagePayload)
    case flashImage(FlashImagePayload)
    case multiImage(MultiImagePayload)
    case audio(AudioPayload)
    case file(FilePayload)
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

/// `file` (PROTOCOL.md v2): any file. `name` is what the sender called it;
/// it came over the network, so it touches the disk only through
/// `SafeFileName.base`.
public struct FilePayload: Sendable, Hashable, Codable {
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public var name: String
    public var size: Int
    public var mime: String
    public init(objectKey: String, url: String = "", expireAt: Int = 0, name: String, size: Int,
                mime: String = "application/octet-stream") {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt
        self.name = name; self.size = size; self.mime = mime
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

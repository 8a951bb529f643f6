/// The typed payload of a message, replacing the seed's `content: Any`.
///
/// It holds one ``KindPayload``, and no list of kinds: each kind declares
/// its payload in its own file under `Kinds/`, with a factory and a reader
/// on this type (`.image(p)` builds one, `content.image` reads it back), and
/// is listed once in ``MessageKinds/all``. Adding a kind touches no switch.
public struct MessageContent: Sendable, Hashable {
    /// The payload, whatever its kind.
    public let base: any KindPayload

    public init(_ payload: some KindPayload) { base = payload }

    /// Its kind, as its payload's type says.
    public var messageType: ChatMessageType { type(of: base).messageType }

    /// This content's payload when it is a `P`.
    public func payload<P: KindPayload>(as type: P.Type) -> P? { base as? P }

    public static func == (a: MessageContent, b: MessageContent) -> Bool { AnyHashable(a.base) == AnyHashable(b.base) }
    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }
}

/// What a kind's payload says about itself beyond its fields.
public protocol KindPayload: Sendable, Hashable {
    /// The kind this payload belongs to.
    static var messageType: ChatMessageType { get }
    /// The one server object it carries, if any, mirrored into the message's
    /// media fields (`objectKey`, the signed URL and its expiry).
    var storedObject: StoredObject? { get }
    /// Copies what the seed keeps in flat fields of the message (its media
    /// keys, sizes, duration, quote) out of the payload. By default: the
    /// stored object.
    func mirror(into message: inout ChatMessage)
    /// The wire form of a kind with a contentType of its own (101 text, 106
    /// mention, 2101 revoke notice, 15xx group notices); nil for the custom
    /// payloads of contentType 110, which ``MessageKinds`` encodes, and for
    /// what is never sent.
    var ownWireForm: (contentType: Int, content: String)? { get }
}

extension KindPayload {
    public var storedObject: StoredObject? { nil }
    public var ownWireForm: (contentType: Int, content: String)? { nil }

    public func mirror(into message: inout ChatMessage) { storedObject?.mirror(into: &message) }
}

/// One object in the server's store, as a payload refers to it.
public struct StoredObject: Sendable, Hashable {
    public var key: String
    public var url: String
    public var expireAt: Int
    public init(key: String, url: String, expireAt: Int) {
        self.key = key; self.url = url; self.expireAt = expireAt
    }

    /// Its key, its signed URL (none when empty) and when that expires.
    public func mirror(into message: inout ChatMessage) {
        message.objectKey = key
        message.imageUrl = url.isEmpty ? nil : url
        message.urlExpireAt = expireAt
    }
}

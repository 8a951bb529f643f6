import Foundation

/// PROTOCOL.md v4 "Secret chats": the keys endpoints' bodies and the
/// ciphertext message (`contentType` 300). Keys are base64 of the raw
/// 32-byte public keys, signatures of the 64-byte Ed25519 signatures.
public enum SecretWire {
    /// `contentType` of a secret message.
    public static let contentType = 300
    /// A user's devices with keys, at most.
    public static let maxDevices = 5
    /// One-time prekeys the server keeps per device, at most.
    public static let maxOneTimePrekeys = 200
    /// Clients top up when fewer are left.
    public static let topUpBelow = 20
    /// A secret message's request body, at most (other bodies stay at 64 KiB).
    public static let maxBodyBytes = 1024 * 1024
    /// The envelope key of a device: `"tb_2:<deviceId>"`.
    public static func envelopeKey(imUid: String, deviceId: String) -> String { imUid + ":" + deviceId }
    /// The imUid and device id of an envelope key.
    public static func parseEnvelopeKey(_ key: String) -> (imUid: String, deviceId: String)? {
        guard let colon = key.firstIndex(of: ":") else { return nil }
        let imUid = String(key[..<colon]), device = String(key[key.index(after: colon)...])
        guard ConversationIDHelper.uid(fromImUid: imUid) != nil, !device.isEmpty, device.count <= 64 else { return nil }
        return (imUid, device)
    }
}

public struct PrekeyWire: Codable, Sendable, Hashable {
    public var id: Int
    public var key: String
    public init(id: Int, key: String) { self.id = id; self.key = key }
}

public struct SignedPrekeyWire: Codable, Sendable, Hashable {
    public var id: Int
    public var key: String
    public var signature: String
    public init(id: Int, key: String, signature: String) { self.id = id; self.key = key; self.signature = signature }
}

/// `PUT /keys/device`.
public struct DeviceKeysUpload: Codable, Sendable, Hashable {
    public var identityKey: String
    public var signingKey: String
    public var signedPrekey: SignedPrekeyWire
    public var oneTimePrekeys: [PrekeyWire]
    public init(identityKey: String, signingKey: String, signedPrekey: SignedPrekeyWire, oneTimePrekeys: [PrekeyWire]) {
        self.identityKey = identityKey; self.signingKey = signingKey
        self.signedPrekey = signedPrekey; self.oneTimePrekeys = oneTimePrekeys
    }
}

/// `GET /keys/count`.
public struct PrekeyCount: Codable, Sendable, Hashable {
    public var oneTimePrekeys: Int
    public init(oneTimePrekeys: Int) { self.oneTimePrekeys = oneTimePrekeys }
}

/// One device in `/keys/devices` and `/keys/claim`; `oneTimePrekey` only in a
/// claim's answer, where it is written even when null (none was left).
public struct DeviceBundle: Codable, Sendable, Hashable {
    public var deviceId: String
    public var identityKey: String
    public var signingKey: String
    public var signedPrekey: SignedPrekeyWire
    public var oneTimePrekey: PrekeyWire?
    /// Whether this bundle came from a claim (and so writes `oneTimePrekey`).
    public var claimed: Bool

    public init(deviceId: String, identityKey: String, signingKey: String, signedPrekey: SignedPrekeyWire,
                oneTimePrekey: PrekeyWire? = nil, claimed: Bool = false) {
        self.deviceId = deviceId; self.identityKey = identityKey; self.signingKey = signingKey
        self.signedPrekey = signedPrekey; self.oneTimePrekey = oneTimePrekey; self.claimed = claimed
    }

    enum CodingKeys: String, CodingKey { case deviceId, identityKey, signingKey, signedPrekey, oneTimePrekey }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        identityKey = try c.decode(String.self, forKey: .identityKey)
        signingKey = try c.decode(String.self, forKey: .signingKey)
        signedPrekey = try c.decode(SignedPrekeyWire.self, forKey: .signedPrekey)
        claimed = c.contains(.oneTimePrekey)
        oneTimePrekey = try c.decodeIfPresent(PrekeyWire.self, forKey: .oneTimePrekey)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(deviceId, forKey: .deviceId)
        try c.encode(identityKey, forKey: .identityKey)
        try c.encode(signingKey, forKey: .signingKey)
        try c.encode(signedPrekey, forKey: .signedPrekey)
        if claimed { try c.encode(oneTimePrekey, forKey: .oneTimePrekey) }
    }
}

public struct DevicesResponse: Codable, Sendable, Hashable {
    public var devices: [DeviceBundle]
    public init(devices: [DeviceBundle]) { self.devices = devices }
}

/// `POST /keys/claim`.
public struct KeyClaimRequest: Codable, Sendable, Hashable {
    public var userId: Int
    public var deviceIds: [String]?
    enum CodingKeys: String, CodingKey { case userId = "user_id", deviceIds = "device_ids" }
    public init(userId: Int, deviceIds: [String]? = nil) { self.userId = userId; self.deviceIds = deviceIds }
}

/// `POST /secret/retry` and `POST /secret/flash-viewed`.
public struct SecretMessageRef: Codable, Sendable, Hashable {
    public var conversationId: String
    public var clientMsgId: String
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", clientMsgId = "client_msg_id" }
    public init(conversationId: String, clientMsgId: String) { self.conversationId = conversationId; self.clientMsgId = clientMsgId }
}

/// `POST /secret/reseal`.
public struct SecretResealRequest: Codable, Sendable, Hashable {
    public var conversationId: String
    public var clientMsgId: String
    public var from: String
    public var envelopes: [String: SecretEnvelope]
    enum CodingKeys: String, CodingKey {
        case conversationId = "conversation_id", clientMsgId = "client_msg_id", from, envelopes
    }
    public init(conversationId: String, clientMsgId: String, from: String, envelopes: [String: SecretEnvelope]) {
        self.conversationId = conversationId; self.clientMsgId = clientMsgId; self.from = from; self.envelopes = envelopes
    }
}

/// One device's ciphertext: `t` is "prekey" for a session's first messages
/// (X3DH's initial message), "msg" after; `b` is base64.
public struct SecretEnvelope: Codable, Sendable, Hashable {
    public var t: String
    public var b: String
    public init(t: String, b: String) { self.t = t; self.b = b }
    public var isPrekey: Bool { t == "prekey" }
}

/// The `content` of a `contentType` 300 message.
public struct SecretPayload: Codable, Sendable, Hashable {
    public var v: Int
    /// The sending device.
    public var from: String
    /// "msg" (counts as unread) or "ctl" (reactions, edits, timers: counts for nothing).
    public var `class`: String
    public var blobs: [String]?
    /// Unix seconds (the sender's clock plus the chat's timer).
    public var expireAt: Int?
    public var envelopes: [String: SecretEnvelope]
    public var flash: Bool?
    /// Set by the server: the envelopes a reseal replaced, by the device
    /// that sealed them again (that envelope's `from`; the first reseal wins).
    public var resealedBy: [String: String]?

    /// The device that sealed the envelope of `receiver`.
    public func sender(of receiver: String) -> String { resealedBy?[receiver] ?? from }

    public init(from: String, class kind: String, blobs: [String]? = nil, expireAt: Int? = nil,
                envelopes: [String: SecretEnvelope], flash: Bool? = nil) {
        v = 1; self.from = from; self.class = kind; self.blobs = blobs; self.expireAt = expireAt
        self.envelopes = envelopes; self.flash = flash
    }

    public var isControl: Bool { self.class == "ctl" }

    public static func decode(_ content: String) -> SecretPayload? {
        try? JSONDecoder().decode(SecretPayload.self, from: Data(content.utf8))
    }

    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// What is wrong with a payload as the server checks it, or nil.
    public var problem: String? {
        guard v == 1 else { return "v must be 1" }
        guard !from.isEmpty, from.count <= 64 else { return "from must be a device id" }
        guard self.class == "msg" || self.class == "ctl" else { return "class must be msg or ctl" }
        guard !envelopes.isEmpty, envelopes.count <= 2 * SecretWire.maxDevices else { return "envelopes must name 1-10 devices" }
        for (key, e) in envelopes {
            guard SecretWire.parseEnvelopeKey(key) != nil else { return "envelope key \(key.prefix(80)) is not tb_N:deviceId" }
            guard e.t == "prekey" || e.t == "msg" else { return "an envelope's t must be prekey or msg" }
            guard Data(base64Encoded: e.b) != nil, !e.b.isEmpty else { return "an envelope's b must be base64" }
        }
        if let blobs, blobs.count > 20 || blobs.contains(where: { $0.isEmpty || $0.count > 200 }) {
            return "blobs must be at most 20 object keys"
        }
        if let expireAt, expireAt <= 0 { return "expireAt must be positive" }
        if flash == true, isControl { return "a control message cannot be a flash image" }
        return nil
    }
}

/// What an envelope's plaintext holds (PROTOCOL.md: a message as in open
/// chats, or a control).
public struct SecretPlaintext: Codable, Sendable, Hashable {
    public var contentType: Int?
    public var content: String?
    public var ctl: String?
    public var target: String?
    public var emoji: String?
    public var on: Bool?
    public var seconds: Int?

    public init(contentType: Int, content: String) { self.contentType = contentType; self.content = content }
    public init(ctl: String, target: String? = nil, emoji: String? = nil, on: Bool? = nil, content: String? = nil,
                seconds: Int? = nil) {
        self.ctl = ctl; self.target = target; self.emoji = emoji; self.on = on; self.content = content; self.seconds = seconds
    }

    public var jsonData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    public static func decode(_ data: Data) -> SecretPlaintext? { try? JSONDecoder().decode(SecretPlaintext.self, from: data) }
}

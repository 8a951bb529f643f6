/// JSON written directly, for the few shapes the server writes on every send
/// (a message event, a `sync` notice): the same objects the Codable
/// conformances produce, without an encoder's boxing. Tests check each
/// against the Codable decoding.
public enum JSONText {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `s` as a JSON string literal (RFC 8259: quote, backslash and the C0
    /// controls escaped; everything else as UTF-8, which a Swift String
    /// always is).
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0x00..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }

    public static func appendInt(_ v: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(v).utf8)
    }

    static func appendKey(_ key: StaticString, to out: inout [UInt8]) {
        out.append(0x22)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(0x22)
        out.append(0x3A)
    }
}

extension WireMessage {
    /// This message as the JSON object its Codable conformance writes.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(0x7B)
        JSONText.appendKey("serverMsgID", to: &out); JSONText.appendString(serverMsgID, to: &out)
        out.append(0x2C); JSONText.appendKey("clientMsgID", to: &out); JSONText.appendString(clientMsgID, to: &out)
        out.append(0x2C); JSONText.appendKey("conversationId", to: &out); JSONText.appendString(conversationId, to: &out)
        out.append(0x2C); JSONText.appendKey("seq", to: &out); JSONText.appendInt(seq, to: &out)
        out.append(0x2C); JSONText.appendKey("sendID", to: &out); JSONText.appendString(sendID, to: &out)
        out.append(0x2C); JSONText.appendKey("recvID", to: &out); JSONText.appendString(recvID, to: &out)
        out.append(0x2C); JSONText.appendKey("contentType", to: &out); JSONText.appendInt(contentType, to: &out)
        out.append(0x2C); JSONText.appendKey("content", to: &out); JSONText.appendString(content, to: &out)
        out.append(0x2C); JSONText.appendKey("sendTime", to: &out); JSONText.appendInt(sendTime, to: &out)
        out.append(0x2C); JSONText.appendKey("revoked", to: &out); out.append(contentsOf: (revoked ? "true" : "false").utf8)
        out.append(0x2C); JSONText.appendKey("flashViewed", to: &out); out.append(contentsOf: (flashViewed ? "true" : "false").utf8)
        if let reactions, !reactions.isEmpty {
            out.append(0x2C); JSONText.appendKey("reactions", to: &out); out.append(0x7B)
            for (i, e) in reactions.entries.enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONText.appendString(e.emoji, to: &out); out.append(0x3A); out.append(0x5B)
                for (j, u) in e.users.enumerated() {
                    if j > 0 { out.append(0x2C) }
                    JSONText.appendString(u, to: &out)
                }
                out.append(0x5D)
            }
            out.append(0x7D)
        }
        if let editedAt { out.append(0x2C); JSONText.appendKey("editedAt", to: &out); JSONText.appendInt(editedAt, to: &out) }
        if deletedForMe == true { out.append(0x2C); JSONText.appendKey("deletedForMe", to: &out); out.append(contentsOf: "true".utf8) }
        if expired == true { out.append(0x2C); JSONText.appendKey("expired", to: &out); out.append(contentsOf: "true".utf8) }
        out.append(0x7D)
    }
}

extension SyncEvent {
    /// The event as JSON text: message events written directly, the rest
    /// through the Codable conformance (`encode`).
    public func jsonText(encode: (SyncEvent) throws -> String) rethrows -> String {
        let kind: StaticString
        let message: WireMessage
        switch self {
        case .message(let m): kind = "message"; message = m
        case .messageUpdate(let m): kind = "message_update"; message = m
        case .conversation, .group, .contact, .friendRequest, .newLogin, .read, .devices, .secretRetry: return try encode(self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(256 + message.content.utf8.count)
        out.append(0x7B)
        JSONText.appendKey("kind", to: &out)
        out.append(0x22)
        out.append(contentsOf: UnsafeBufferPointer(start: kind.utf8Start, count: kind.utf8CodeUnitCount))
        out.append(0x22)
        out.append(0x2C)
        JSONText.appendKey("message", to: &out)
        message.appendJSON(to: &out)
        out.append(0x7D)
        return String(decoding: out, as: UTF8.self)
    }
}

extension PushFrame {
    /// `sync`/`hello` written directly (one per user per commit); the rest
    /// through the Codable conformance (`encode`).
    public func jsonText(encode: (PushFrame) throws -> String) rethrows -> String {
        switch self {
        case .sync(let cursor): "{\"type\":\"sync\",\"cursor\":\(cursor)}"
        case .hello(let cursor): "{\"type\":\"hello\",\"cursor\":\(cursor)}"
        default: try encode(self)
        }
    }
}

extension SendMessageResponse {
    /// The acknowledgement as the JSON object its Codable conformance writes
    /// (one per send).
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + clientMsgID.utf8.count)
        out.append(0x7B)
        JSONText.appendKey("serverMsgID", to: &out); JSONText.appendString(serverMsgID, to: &out)
        out.append(0x2C); JSONText.appendKey("clientMsgID", to: &out); JSONText.appendString(clientMsgID, to: &out)
        out.append(0x2C); JSONText.appendKey("sendTime", to: &out); JSONText.appendInt(sendTime, to: &out)
        out.append(0x2C); JSONText.appendKey("seq", to: &out); JSONText.appendInt(seq, to: &out)
        out.append(0x7D)
        return out
    }
}

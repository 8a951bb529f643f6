// Fuzzes the content of a message (the custom payload JSON of contentType
// 110, the 2101 revoke notice, text, unknown types) through
// IMMessageMapper.decode / map and the MessageKinds registry, as the client
// reads a message's `content` string. The input is the content itself (invalid
// UTF-8 decoded lossily, as a Swift String from the wire always is).
// Asserted: decode never fails (unreadable content becomes .unknown with
// the raw text kept); a decoded payload re-encodes to itself; summaries
// are one line; what reaches the terminal is sanitised.
import ChatCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let content = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for contentType in [ContentType.custom, ContentType.revokeNotice, ContentType.text, 1501] {
        for revoked in [false, true] {
            let (type, decoded) = IMMessageMapper.decode(contentType: contentType, content: content, revoked: revoked)
            if let p = decoded.unknown {
                require(type == .unknown && p.raw == content && p.contentType == contentType,
                        "unknown content must keep its raw text and type: \(p)")
            }
            requirePayloadRoundTrip(type: type, content: decoded)
            requireShowableContent(decoded)
        }
        let wire = WireMessage(serverMsgID: "m_1", clientMsgID: "c_1", conversationId: "si_tb_1_tb_2", seq: 1,
                               sendID: "tb_2", recvID: "tb_1", contentType: contentType, content: content,
                               sendTime: 1_763_800_000_000)
        requireShowableMessage(wire, currentUID: "tb_1")
        requireShowableMessage(wire, currentUID: "tb_2")
    }
    // JSONObject: "nil unless it is a JSON object" (not an array, string or
    // number). Not compared with JSONSerialization: JSONDecoder, which it
    // uses, does not check a value it never reads (an invalid escape in a
    // duplicate key's first value passes).
    if let obj = JSONObject(jsonText: content) {
        let trimmed = content.trimmingCharacters(in: .whitespacesAndNewlines)
        require(trimmed.hasPrefix("{") && trimmed.hasSuffix("}"), "JSONObject read a non-object: \(shown(content))")
        // Its compact text reads back as the same object.
        let again = JSONObject(jsonText: obj.jsonText())
        require(again == obj, "JSONObject.jsonText does not read back: \(shown(content)) -> \(shown(obj.jsonText()))")
    }
    return 0
}

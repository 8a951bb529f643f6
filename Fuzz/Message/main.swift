// Fuzzes WireMessage decoding (a message object, PROTOCOL.md "Messages") and
// everything the client derives from it: IMMessageMapper.map, the payload
// kinds, the preview line in both languages, the sanitised bubble text.
// Asserted: the numeric ranges WireMessage promises, Codable and the
// server's direct JSON writer round-trip, map() keeps the wire's fields,
// summaries are one line, what reaches the terminal is sanitised, and a
// payload re-encodes to itself (requireWellFormedMessage in Shared/).
import ChatCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let m = decodeJSON(WireMessage.self, data) { requireWellFormedMessage(m) }
    // A history page carries the same objects.
    if let page = decodeJSON(HistoryResponse.self, data) { page.messages.forEach(requireWellFormedMessage) }
    return 0
}

// Fuzzes ConversationSummary decoding (PROTOCOL.md "Conversations": one
// summary, and the `[ConversationSummary]` list answer) and the list row the
// client makes of it. Asserted: seqs, count and time within the ranges
// ConversationSummary.init(from:) promises, Codable round trip, the sanitised
// name and preview line, a valid conversation id is exactly what
// ConversationIDHelper.make writes, and everything checked for its
// `lastMessage` as in the message harness (Shared/ChatCoreChecks.swift).
import ChatCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let s = decodeJSON(ConversationSummary.self, data) { requireWellFormedSummary(s) }
    if let list = decodeJSON([ConversationSummary].self, data) { list.forEach(requireWellFormedSummary) }
    return 0
}

// Fuzzes JSONSyntax.isObject, the server's check before it splices a stored
// event body into a `/chat/sync` page. Two properties from its doc comment:
// 1. "one well-formed JSON value (RFC 8259)", "exactly one JSON object,
//    blanks around it allowed": it agrees with Foundation's JSONSerialization
//    on whether the text is a JSON object. Where Foundation departs from RFC
//    8259 the comparison is made on what the RFC says instead (see
//    `compareWithFoundation`); nesting deeper than JSONSyntax.maxDepth is
//    refused by design.
// 2. "a damaged row costs that event, not the page": a body it accepts,
//    spliced between two good events as ChatService.syncPage does, leaves a
//    page the client (JSONDecoder, SyncResponse) still reads, with both good
//    events in it.
// The input is decoded lossily: isObject takes a String, always valid UTF-8.
import ChatCore
import Foundation

private let goodEvent = #"{"kind":"message","message":{"serverMsgID":"m_1","clientMsgID":"c_1","conversationId":"si_tb_1_tb_2","seq":1,"sendID":"tb_2","recvID":"tb_1","contentType":101,"content":"hi","sendTime":1,"revoked":false,"flashViewed":false}}"#

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let accepted = JSONSyntax.isObject(text)
    compareWithFoundation(text, accepted: accepted)
    if accepted { requireSplicedPageReadable(text) }
    return 0
}

private func foundationReadsObject(_ text: String) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) is [String: Any]
}

/// Foundation on Linux departs from RFC 8259 in ways found by this harness
/// (each checked by hand): it reads a NUL-bearing text as UTF-16/32, skips a
/// leading BOM, allows trailing commas, and refuses unpaired surrogate
/// escapes and numbers beyond Double's range, which the RFC grammar allows.
/// Those cases are compared on the RFC's terms.
private func compareWithFoundation(_ text: String, accepted: Bool) {
    if text.utf8.contains(0) {
        require(!accepted, "JSONSyntax accepts a raw NUL: \(shown(text))")
        return
    }
    let strict = removingFoundationExtensions(text)
    if strict != text {
        require(!accepted, "JSONSyntax accepts a BOM or a trailing comma: \(shown(text))")
        compareWithFoundation(strict, accepted: JSONSyntax.isObject(strict))
        return
    }
    let foundation = foundationReadsObject(text)
    if accepted && !foundation {
        // Still an object once surrogate escapes and numbers are tame.
        let tame = tamingEscapesAndNumbers(text)
        require(foundationReadsObject(tame),
                "JSONSyntax accepts what JSONSerialization does not read as an object: \(shown(text))\n  tamed: \(shown(tame))")
    } else if !accepted && foundation {
        require(nesting(text) >= JSONSyntax.maxDepth,
                "JSONSyntax refuses an object JSONSerialization reads (depth \(nesting(text))): \(shown(text))")
    }
}

private func requireSplicedPageReadable(_ body: String) {
    let page = #"{"events":["# + goodEvent + "," + body + "," + goodEvent + #"],"cursor":3,"hasMore":false}"#
    do {
        let decoded = try JSONDecoder().decode(SyncResponse.self, from: Data(page.utf8))
        require(decoded.events.count + decoded.skippedEvents == 3 && decoded.events.count >= 2,
                "spliced page lost good events: \(decoded.events.count) + \(decoded.skippedEvents) skipped")
    } catch {
        require(false, "an accepted body makes the whole sync page unreadable (\(error)): \(shown(body))")
    }
}

private let blanks: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

/// `text` without a leading BOM and without commas (outside strings) that
/// only blanks separate from a closing } or ].
private func removingFoundationExtensions(_ text: String) -> String {
    var b = Array(text.utf8)
    if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
    var out: [UInt8] = []
    var inString = false, escaped = false
    for (i, c) in b.enumerated() {
        if inString {
            if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
        } else if c == UInt8(ascii: "\"") {
            inString = true
        } else if c == UInt8(ascii: ",") {
            var j = i + 1
            while j < b.count, blanks.contains(b[j]) { j += 1 }
            if j < b.count, b[j] == UInt8(ascii: "}") || b[j] == UInt8(ascii: "]") { continue }
        }
        out.append(c)
    }
    return String(decoding: out, as: UTF8.self)
}

/// Surrogate escapes as `\u0041` and every number as `0`; only called on
/// text JSONSyntax accepted, so every number is a well-formed token.
private func tamingEscapesAndNumbers(_ text: String) -> String {
    let b = Array(text.utf8)
    var out: [UInt8] = []
    var i = 0, inString = false
    while i < b.count {
        let c = b[i]
        if inString {
            if c == UInt8(ascii: "\\"), i + 1 < b.count {
                if b[i + 1] == UInt8(ascii: "u"), i + 5 < b.count, b[i + 2] | 0x20 == UInt8(ascii: "d"),
                   (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(b[i + 3]) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(b[i + 3] | 0x20) {
                    out += Array("\\u0041".utf8); i += 6; continue
                }
                out += [c, b[i + 1]]; i += 2; continue
            }
            if c == UInt8(ascii: "\"") { inString = false }
            out.append(c); i += 1; continue
        }
        if c == UInt8(ascii: "\"") { inString = true; out.append(c); i += 1; continue }
        if c == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) {
            while i < b.count, "0123456789+-.eE".utf8.contains(b[i]) { i += 1 }
            out.append(UInt8(ascii: "0")); continue
        }
        out.append(c); i += 1
    }
    return String(decoding: out, as: UTF8.self)
}

/// The deepest nesting of objects and arrays outside strings.
private func nesting(_ text: String) -> Int {
    var depth = 0, deepest = 0, inString = false, escaped = false
    for b in text.utf8 {
        if inString {
            if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            continue
        }
        switch b {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; deepest = max(deepest, depth)
        case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
        default: break
        }
    }
    return deepest
}

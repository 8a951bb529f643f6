// Fuzzes the `/chat/sync` page (SyncResponse with its SyncEvents) and the
// WebSocket frames (PushFrame), as the client decodes them.
// Asserted: a page decodes leniently (unknown or broken events are counted
// in skippedEvents, never fail the page, so events + skipped never exceed
// what was sent); each event's message or summary is well formed as in the
// message and summary harnesses; the client's direct reader of pages and
// frames gives what the decoder gives; the server's direct writer for
// events and frames (JSONText) decodes to the same value; Codable round
// trips.
import ChatCore
import Foundation

/// Only counts the entries of `events`, whatever they hold.
private struct RawPage: Decodable {
    struct AnyEvent: Decodable { init(from decoder: any Decoder) throws {} }
    let events: [AnyEvent]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let page = decodeJSON(SyncResponse.self, data)
    if let page { requireWellFormedPage(page, data) }
    // The client reads pages and frames directly where it can (WireReader): always what the decoder reads.
    let direct = try? SyncResponse.decode(data)
    require(direct == page, "read directly as \(String(describing: direct)), decoded as \(String(describing: page))")
    if let event = decodeJSON(SyncEvent.self, data) { requireWellFormedEvent(event) }
    let frame = decodeJSON(PushFrame.self, data)
    if let frame { requireWellFormedFrame(frame) }
    if let text = String(validating: data, as: UTF8.self) {
        let directFrame = PushFrame.decode(text)
        require(directFrame == frame, "frame read directly as \(String(describing: directFrame)), decoded as \(String(describing: frame))")
    }
    return 0
}

func requireWellFormedPage(_ page: SyncResponse, _ data: Data) {
    let sent = decodeJSON(RawPage.self, data)?.events.count
    require(sent == page.events.count + page.skippedEvents,
            "\(page.events.count) events + \(page.skippedEvents) skipped, but the page holds \(String(describing: sent))")
    page.events.forEach(requireWellFormedEvent)
    // Re-encoded (nothing skipped any more) it reads back the same.
    let again = (try? JSONEncoder().encode(page)).flatMap { decodeJSON(SyncResponse.self, $0) }
    require(again?.events == page.events && again?.cursor == page.cursor && again?.hasMore == page.hasMore
            && again?.skippedEvents == 0, "SyncResponse round trip changed it: \(page) -> \(String(describing: again))")
}

func requireWellFormedEvent(_ event: SyncEvent) {
    switch event {
    case .message(let m), .messageUpdate(let m): requireWellFormedMessage(m)
    case .conversation(let s): requireWellFormedSummary(s)
    case .group(let g):
        // The list and the chat's title draw these, sanitised.
        for text in [g.name, g.uniqueName, g.notice, g.ownerId] { requireShowable(text, keepNewlines: false) }
        require(g.groupId > 0 && g.conversationId == ConversationIDHelper.group(g.groupId),
                "group \(g.groupId) read with conversationId \(shown(g.conversationId))")
    case .contact(let c, _):
        // The contacts view, the pages and the list (a remark names the chat) draw these, sanitised.
        for text in [c.username, c.remark, c.avatar, c.account ?? "", c.signature ?? ""] { requireShowable(text, keepNewlines: false) }
    case .friendRequest(let r):
        for text in [r.from.username, r.to.username, r.message] { requireShowable(text, keepNewlines: false) }
    case .newLogin(let s):
        // The status line and my page draw the device's words, sanitised.
        requireShowable(s.userAgent, keepNewlines: false)
    case .read(_, _, let seq):
        // Only a number reaches the store (a conversation's peer read seq); ids are keys, never drawn.
        require(seq >= 0, "a read event with seq \(seq)")
    case .devices, .secretRetry:
        // Ids only: they pick a user whose keys are fetched again, or a message to seal again; never drawn.
        break
    }
    requireCodableRoundTrip(event, "SyncEvent")
    // What the server stores and later splices into a page: JSONSyntax must
    // accept it and the client must read it back as the same event.
    let text: String
    do { text = try event.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) } } catch {
        require(false, "the server cannot write event \(event): \(error)")
        return
    }
    require(JSONSyntax.isObject(text), "JSONSyntax refuses the server's event JSON: \(shown(text))")
    let back = decodeJSON(SyncEvent.self, Data(text.utf8))
    require(back == event, "event JSON does not read back\n  was: \(event)\n  now: \(String(describing: back))")
}

func requireWellFormedFrame(_ frame: PushFrame) {
    requireCodableRoundTrip(frame, "PushFrame")
    let text = (try? frame.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }) ?? ""
    let back = decodeJSON(PushFrame.self, Data(text.utf8))
    require(back == frame, "frame JSON does not read back: \(frame) -> \(shown(text))")
    if case .presence(let uid, _) = frame { requireShowable(uid, keepNewlines: false) }
}

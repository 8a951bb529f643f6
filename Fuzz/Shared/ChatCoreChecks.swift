// What the client does with a decoded wire value, and the promises the
// ChatCore sources make about each step, shared by the ChatCore harnesses.
// Every check names the doc comment it comes from.
import ChatCore
import Foundation

/// The client's two languages: every preview line is made in both.
let localizers: [Localizer] = {
    let all = [Localizer(language: .zhHans), Localizer(language: .en)]
    // Without the tables every summary would be its key, and the checks on
    // them would test nothing.
    require(all.allSatisfy { !$0.keys.isEmpty }, "localisation tables not found (Resources/Localization)")
    return all
}()

func decodeJSON<T: Decodable>(_ type: T.Type, _ data: Data) -> T? {
    try? JSONDecoder().decode(type, from: data)
}

/// `value` written by JSONEncoder and read back: what the client stores and
/// re-reads must come back the same.
func requireCodableRoundTrip<T: Codable & Equatable>(_ value: T, _ what: String) {
    let data: Data
    do { data = try JSONEncoder().encode(value) } catch {
        require(false, "\(what): a decoded value cannot be encoded: \(error)")
        return
    }
    let again = decodeJSON(T.self, data)
    require(again == value, "\(what): encode/decode round trip changed the value\n  was: \(value)\n  now: \(String(describing: again))")
}

// MARK: - TerminalSanitizer

func isBidiControl(_ v: UInt32) -> Bool {
    (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C
}

/// TerminalSanitizer's doc: no ESC sequences, no C0 (TAB -> space, newlines
/// only with `keepNewlines`), no DEL, no C1, no bidi controls.
func requireTerminalSafe(_ out: String, keepNewlines: Bool, from input: String) {
    for s in out.unicodeScalars {
        let v = s.value
        let ok = (v >= 0x20 || (keepNewlines && v == 0x0A)) && v != 0x7F && !(0x80...0x9F).contains(v) && !isBidiControl(v)
        require(ok, String(format: "sanitised text holds U+%04X (keepNewlines: \(keepNewlines))\n  in:  ", v)
                + shown(input) + "\n  out: " + shown(out))
    }
}

/// Sanitises as the screen does and checks the promise.
func requireShowable(_ text: String, keepNewlines: Bool) {
    requireTerminalSafe(TerminalSanitizer.sanitize(text, keepNewlines: keepNewlines), keepNewlines: keepNewlines, from: text)
}

// MARK: - Messages

/// A message as the client receives it (WireMessage, IMMessageMapper,
/// MessageKinds), everything the screen and the store derive from it.
func requireWellFormedMessage(_ m: WireMessage) {
    // WireMessage.init(from:): seq outside 0...2^53 refused, time clamped into it.
    require((0...WireRange.max).contains(m.seq), "seq \(m.seq) outside 0...2^53")
    require((0...WireRange.max).contains(m.sendTime), "sendTime \(m.sendTime) outside 0...2^53")
    requireCodableRoundTrip(m, "WireMessage")

    // JSONText: the server's direct writer gives "the same objects the
    // Codable conformances produce", and JSONSyntax must accept them (the
    // sync page splices them in only when it does).
    var direct: [UInt8] = []
    m.appendJSON(to: &direct)
    let directText = String(decoding: direct, as: UTF8.self)
    require(JSONSyntax.isObject(directText), "JSONSyntax refuses the server's own message JSON: \(shown(directText))")
    let reread = decodeJSON(WireMessage.self, Data(direct))
    require(reread == m, "appendJSON does not decode to the same message\n  was: \(m)\n  now: \(String(describing: reread))")

    // The store files a message under its conversation only if the id is valid.
    requireValidConversationID(m.conversationId)
    for me in [m.sendID, m.recvID, "tb_fuzz_nobody"] { requireShowableMessage(m, currentUID: me) }
}

/// IMMessageMapper.map "never fails"; the fields it copies are the wire's;
/// the preview line is computed as ConversationRecord.computePreview does
/// (summary, then TerminalSanitizer) and the bubble text as ChatScreen does.
func requireShowableMessage(_ m: WireMessage, currentUID: String) {
    let msg = IMMessageMapper.map(m, currentUID: currentUID)
    require(msg.id == m.clientMsgID && msg.seq == m.seq && msg.createTime == m.sendTime
            && msg.conversationId == m.conversationId && msg.senderId == m.sendID,
            "map() did not keep the wire's identity fields: \(msg) from \(m)")
    require(msg.isMe == (m.sendID == currentUID), "isMe wrong for \(currentUID): \(msg)")
    require(msg.isRecalled == m.revoked && msg.isDestroyed == m.flashViewed, "revoked/flashViewed not carried: \(msg)")
    requireSummaries(of: msg)
    requireShowableContent(msg.content)
    requirePayloadRoundTrip(type: msg.type, content: msg.content)
}

/// MessageKinds.summary: "the one-line summary" (flattenLines: newlines and
/// other line separators become spaces), then sanitised for the list.
func requireSummaries(of msg: ChatMessage) {
    for l in localizers {
        let summary = MessageKinds.summary(of: msg, localizer: l)
        require(!summary.contains(where: \.isNewline), "summary (\(l.language)) is not one line: \(shown(summary)) of \(msg)")
        requireShowable(summary, keepNewlines: false)
    }
}

/// The texts ChatScreen draws from a payload, sanitised as it does.
func requireShowableContent(_ content: MessageContent) {
    if let t = content.text { requireShowable(t, keepNewlines: true) }
    if let p = content.signalQuote {
        requireShowable(p.signalContent, keepNewlines: true)
        requireShowable(p.replyContent, keepNewlines: true)
    }
    if let p = content.unknown {
        requireShowable(p.raw, keepNewlines: true)
        if let d = p.msgDesc { requireShowable(d, keepNewlines: false) }
    }
}

/// MessageKind: each kind's `decode` and `encode` read and write the same
/// payload, so a payload read from the wire and written again (a resend, an
/// echo of one's own message through sync) reads back as the same message.
func requirePayloadRoundTrip(type: ChatMessageType, content: MessageContent) {
    if content.text != nil || content.unknown != nil || content.timeMarker != nil { return }
    // Secret chats' rows (contentType 300) are never written again as read:
    // the client seals each message anew, and its notices stay on the device.
    if content.sealed != nil || content.secretNotice != nil { return }
    guard let (contentType, body) = IMMessageMapper.wireContent(for: content) else {
        require(false, "a decoded \(type) payload cannot be written again: \(content)")
        return
    }
    let (type2, content2) = IMMessageMapper.decode(contentType: contentType, content: body)
    require(type2 == type && content2 == content,
            "payload changed on the way back\n  read:    \(type) \(content)\n  written: \(shown(body))\n  re-read: \(type2) \(content2)")
}

// MARK: - Conversations

/// ConversationSummary.init(from:): seqs in 0...2^53, unread count in
/// 0...maxCount, time clamped; the list row shows the sanitised name and the
/// last message's preview.
func requireWellFormedSummary(_ s: ConversationSummary) {
    require((0...WireRange.max).contains(s.maxSeq) && (0...WireRange.max).contains(s.readSeq), "seq out of range: \(s)")
    require((0...WireRange.maxCount).contains(s.unreadCount), "unreadCount \(s.unreadCount) outside 0...\(WireRange.maxCount)")
    require((0...WireRange.max).contains(s.lastMessageTime), "lastMessageTime \(s.lastMessageTime) outside 0...2^53")
    requireCodableRoundTrip(s, "ConversationSummary")
    requireShowable(s.showName, keepNewlines: false)
    if let last = s.lastMessage { requireWellFormedMessage(last) }
    requireValidConversationID(s.conversationId)
}

/// ConversationIDHelper.uids: a valid id is exactly what make() (secret()
/// for an `ss_` id) writes for its two uids; parse() agrees with uids().
func requireValidConversationID(_ id: String) {
    guard let (a, b) = ConversationIDHelper.uids(id) else {
        require(ConversationIDHelper.parse(id) == nil, "parse accepts what uids refuses: \(shown(id))")
        return
    }
    require(a > 0 && b > 0 && a != b, "uids(\(shown(id))) = (\(a), \(b))")
    let made = ConversationIDHelper.isSecret(id) ? ConversationIDHelper.secret(myUid: a, targetUid: b)
        : ConversationIDHelper.make(myUid: a, targetUid: b)
    require(made == id, "make or secret(\(a), \(b)) is not \(shown(id))")
    require(ConversationIDHelper.peerUid(in: id, myUid: a) == b && ConversationIDHelper.peerUid(in: id, myUid: b) == a,
            "peerUid wrong for \(shown(id))")
}

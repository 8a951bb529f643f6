import ChatCore
import TerminalUI

extension Bubbles {
    /// A reply (v3): the quoted sender and one line of what they said, in
    /// grey behind a `│`, then the reply's text. A quote of a revoked
    /// message says so; Enter jumps to the quoted message.
    static func quote(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.quote else { return [] }
        let align: BubbleLine.Align = m.isMe ? .right : .left
        let line = "│ " + quotedLine(p.quote, c)
        let style = !m.isMe && p.mention?.mentions(c.me) == true ? Theme.merge(base, Theme.mention) : base
        return [BubbleLine(text: TextWrap.truncate(line, width: c.width), style: Theme.dim, align: align)] + wrap(p.text, style, m, c)
    }

    /// `Alice：<its first line>`; `引用的消息已撤回` once it is revoked. The
    /// quoted words came from the server: sanitised to one line.
    static func quotedLine(_ q: QuotePayload.Quoted, _ c: BubbleContext) -> String {
        if q.revoked { return c.L.string("ui.quoteRevoked") }
        let who: String
        if let id = q.sendID {
            who = id == c.me ? c.L.string("group.you") : c.senderNames[id] ?? (c.isGroup ? id : c.peerName)
        } else {
            who = ""
        }
        var what = q.text.map { MessageKind.flattenLines($0) } ?? ""
        if what.isEmpty, let type = q.type, let kind = MessageKinds.kind(customType: type) {
            // A picture, a voice message, a file: the tag the list would show.
            let stand = ChatMessage(id: q.clientMsgID, senderId: q.sendID ?? "", receiverId: "", conversationId: "",
                                    type: kind.messageType, content: .unknown(UnknownPayload(contentType: ContentType.custom, raw: "")),
                                    createTime: 0, isRead: true, isMe: false)
            what = kind.summary(stand, c.L)
        }
        let text = who.isEmpty ? what : c.L.string("ui.quoted", ["name": TerminalSanitizer.oneLine(who), "text": what])
        return TerminalSanitizer.oneLine(text)
    }
}

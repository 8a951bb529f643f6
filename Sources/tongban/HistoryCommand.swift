import ArgumentParser
import ChatCore
import ChatSync
import Foundation

/// `tongban history --json`: the fields of seed §一 `ChatMessage`.
struct HistoryLine: Encodable {
    var id: String
    var serverId: String?
    var conversationId: String
    var seq: Int?
    var senderId: String
    var receiverId: String
    var isMe: Bool
    var type: String
    var content: String
    var createTime: Int
    var status: String
    var errorReason: String?
    var isRecalled: Bool
    var isFlash: Bool
    var isDestroyed: Bool
    var objectKey: String?
    var multiObjectKeys: [String]?
    var width: Double?
    var height: Double?
    var durationSec: Int?
    /// v3: a reply's quote (what the server filled in), emoji -> imUids
    /// (absent when none), and when it was edited.
    var quote: QuoteLine?
    var reactions: Reactions?
    var editedAt: Int?
}

/// A reply's quote in `history --json`.
struct QuoteLine: Encodable {
    var clientMsgID: String
    var seq: Int?
    var sendID: String?
    var text: String?
    var type: String?
    var revoked: Bool
    init(_ q: QuotePayload.Quoted) {
        clientMsgID = q.clientMsgID; seq = q.seq; sendID = q.sendID; text = q.text; type = q.type; revoked = q.revoked
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Messages of a conversation, oldest first.")
    @OptionGroup var common: Common
    @Option(help: "The peer (account, display name or uid) or group (name, unique name or sg_ id).") var with: String
    @Option(help: "How many of the newest messages.") var limit = 40
    @Flag(help: "Print JSON.") var json = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server.") var offline = false
    @Flag(help: "The secret (end-to-end encrypted) chat with --with, as this device decrypted it.") var secret = false

    func run() async throws {
        let session = try await common.session()
        let conv = try await resolveConversation(session, with: with, secret: secret)
        if !offline, try await syncNow(session) != nil {
            // The newest hole only: the page shown is the newest one.
            _ = try await online(session) { try await session.fillHistory(conv, pageSize: limit, maxPages: 1) }
        }
        let page = try session.reader.newestPage(conversationId: conv, limit: max(1, min(limit, 1000)))
        let me = session.credentials.imUid
        let lines = page.messages.map { r -> HistoryLine in
            let m = r.chatMessage(myImUid: me)
            var text = m.isRecalled ? MessageKinds.summary(of: m, localizer: L) : (m.text ?? MessageKinds.summary(of: m, localizer: L))
            if let p = m.content.groupNotice { text = p.sentence(me: me, L) }
            if let p = m.content.secretNotice { text = p.sentence(L) }
            return HistoryLine(id: m.id, serverId: m.serverId, conversationId: m.conversationId, seq: r.seq, senderId: m.senderId,
                               receiverId: m.receiverId, isMe: m.isMe, type: m.type.rawValue, content: text, createTime: m.createTime,
                               status: m.status.rawValue, errorReason: m.errorReason, isRecalled: m.isRecalled, isFlash: m.isFlash,
                               isDestroyed: m.isDestroyed, objectKey: m.objectKey, multiObjectKeys: m.multiObjectKeys,
                               width: m.width, height: m.height, durationSec: m.durationSec,
                               quote: m.content.quote.map { QuoteLine($0.quote) },
                               reactions: m.reactions.isEmpty ? nil : m.reactions, editedAt: m.editedAt)
        }
        if json {
            try jsonOut(lines)
            return
        }
        if lines.isEmpty { out(L.string("cli.empty")) }
        let name = try session.reader.conversation(id: conv, localizer: L)?.nickname ?? with
        let senders = try ConversationIDHelper.groupId(conv).map { try session.reader.senderNames(groupId: $0) } ?? [:]
        for l in lines {
            if l.type == ChatMessageType.groupNotice.rawValue || l.type == ChatMessageType.secretNotice.rawValue {
                out("[\(TimeLabel.text(l.createTime, L))] — \(TerminalSanitizer.oneLine(l.content)) —")
                continue
            }
            let who = l.isMe ? session.credentials.username : senders[l.senderId] ?? name
            var mark = l.status == "sending" ? " …" : l.status == "failed" ? " ✗" : ""
            if l.editedAt != nil { mark += " " + L.string("ui.edited") }
            if let r = l.reactions {
                mark += "  [" + r.entries.map { "\(TerminalSanitizer.oneLine($0.emoji)) \($0.users.count)" }.joined(separator: " ") + "]"
            }
            var body = l.content
            if let q = l.quote {
                let said = q.revoked ? L.string("ui.quoteRevoked") : MessageKind.flattenLines(q.text ?? q.type.map { "[\($0)]" } ?? "")
                body = "「" + said + "」 " + body
            }
            out("[\(TimeLabel.text(l.createTime, L))] \(TerminalSanitizer.oneLine(who)): \(indentedBody(body))\(mark)")
        }
    }
}

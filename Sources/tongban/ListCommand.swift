import ArgumentParser
import ChatCore
import ChatSync
import Foundation

/// `tongban ls --json`: the fields of seed §一 `Conversation`.
struct ConversationRow: Encodable {
    var id: String
    var targetUid: Int
    var nickname: String
    var avatar: String
    var isOnline: Bool
    var isPinned: Bool
    var draftText: String?
    var unreadCount: Int
    var lastMessagePreview: String
    var lastMessageTime: Int
    var fromSignal: Bool
    var isImOpened: Bool
    // PROTOCOL.md v2.
    var isMuted: Bool
    var mentionSeq: Int
    var readSeq: Int
    var hasUnreadMention: Bool
    var groupId: Int?
    var memberCount: Int?
    var isMember: Bool?
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "Conversations: pinned first, newest first.")
    @OptionGroup var common: Common
    @Flag(help: "Print JSON.") var json = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server.") var offline = false

    func run() async throws {
        let session = try await common.session()
        if !offline { _ = try await syncNow(session) }
        let list = try session.reader.conversationList(localizer: L, useCache: true)
        if json {
            let rows = list.map { ConversationRow(id: $0.id, targetUid: $0.targetUid, nickname: $0.nickname, avatar: $0.avatar,
                                                  isOnline: $0.isOnline, isPinned: $0.isPinned, draftText: $0.draftText,
                                                  unreadCount: $0.unreadCount, lastMessagePreview: $0.lastMessagePreview,
                                                  lastMessageTime: $0.lastMessageTime, fromSignal: $0.fromSignal, isImOpened: $0.isImOpened,
                                                  isMuted: $0.isMuted, mentionSeq: $0.mentionSeq, readSeq: $0.readSeq,
                                                  hasUnreadMention: $0.hasUnreadMention, groupId: $0.groupId,
                                                  memberCount: $0.isGroup ? $0.memberCount : nil, isMember: $0.isGroup ? $0.isMember : nil) }
            try jsonOut(rows)
            return
        }
        if list.isEmpty { out(L.string("cli.empty")) }
        for c in list {
            let pin = c.isPinned ? "📌" : "  "
            let unread = c.unreadCount == 0 ? "" : " (\(UnreadBadge.text(c.unreadCount)))"
            let preview = c.draftText.map { L.string("summary.draft", ["text": $0]) } ?? c.lastMessagePreview
            let time = TimeLabel.text(c.lastMessageTime, L)
            let count = ConversationMarks.count(c, L)
            let marks = ConversationMarks.flags(c, L)
            let mention = c.hasUnreadMention ? L.string("ui.mentioned") + " " : ""
            out("\(pin) \(TerminalSanitizer.oneLine(c.nickname))\(count)\(unread)\(marks)  \(time)  \(mention)\(TerminalSanitizer.oneLine(preview))")
        }
    }
}

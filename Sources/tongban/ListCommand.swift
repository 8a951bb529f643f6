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
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "Conversations: pinned first, newest first.")
    @OptionGroup var common: Common
    @Flag(help: "Print JSON.") var json = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server.") var offline = false

    func run() async throws {
        let session = try await common.session()
        if !offline { _ = try await syncNow(session) }
        let list = try session.store.conversationList(localizer: L)
        if json {
            let rows = list.map { ConversationRow(id: $0.id, targetUid: $0.targetUid, nickname: $0.nickname, avatar: $0.avatar,
                                                  isOnline: $0.isOnline, isPinned: $0.isPinned, draftText: $0.draftText,
                                                  unreadCount: $0.unreadCount, lastMessagePreview: $0.lastMessagePreview,
                                                  lastMessageTime: $0.lastMessageTime, fromSignal: $0.fromSignal, isImOpened: $0.isImOpened) }
            try jsonOut(rows)
            return
        }
        if list.isEmpty { out(L.string("cli.empty")) }
        for c in list {
            let pin = c.isPinned ? "📌" : "  "
            let unread = c.unreadCount == 0 ? "" : " (\(UnreadBadge.text(c.unreadCount)))"
            let preview = c.draftText.map { L.string("summary.draft", ["text": $0]) } ?? c.lastMessagePreview
            let time = TimeLabel.text(c.lastMessageTime, L)
            out("\(pin) \(TerminalSanitizer.oneLine(c.nickname))\(unread)  \(time)  \(TerminalSanitizer.oneLine(preview))")
        }
    }
}

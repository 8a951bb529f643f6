import ChatCore
import ChatStore
import ChatSync
import ChatViewModels
import Foundation

/// Typing and read receipts (PROTOCOL.md v4): what the socket says, what
/// my typing tells others, and when the open group's counts are asked for.
extension Update {
    /// Someone types (not me: my other devices' typing is not news).
    static func heardTyping(_ conversationId: String, _ userId: String, ttlMs: Int, _ s: inout AppState) -> [Effect] {
        guard userId != s.myImUid else { return [] }
        s.live.heard(typing: userId, in: conversationId, ttlMs: ttlMs, now: s.now)
        return []
    }

    /// New messages end their senders' typing.
    static func messagesArrived(_ changes: AppliedChanges, _ s: inout AppState) {
        for (id, w) in changes.newestIncoming { s.live.arrived(from: w.sendID, in: id) }
    }

    /// After a key: the input bar of the open chat changed, so the chat's
    /// others hear that I type (at most every 3 s while it holds text); a
    /// send starts that count again.
    static func typingWanted(before: (chat: String?, text: String), _ s: inout AppState) -> [Effect] {
        guard let chat = s.chat, chat.id == before.chat, s.editing == nil, !chat.conversation.isRoom,
              s.input.text != before.text else { return [] }
        if s.input.text.isEmpty {
            s.live.sent(in: chat.id)
            return []
        }
        return s.live.typed(s.input.text, in: chat.id, now: s.now) ? [.live(.typing(conversationId: chat.id))] : []
    }

    /// The open group's read counts, when the messages of mine it shows
    /// changed or the server said reads moved (`force`).
    static func readCountsWanted(_ s: inout AppState, force: Bool = false) -> [Effect] {
        guard let chat = s.chat, chat.conversation.isGroup, chat.conversation.isMember else { return [] }
        let mine = chat.messages.filter { $0.isMe && $0.status == .success && !$0.isRecalled && $0.seq > 0 }.map(\.seq)
        guard let seqs = s.live.countsWanted(in: chat.id, mine: mine, force: force) else { return [] }
        return [.live(.readCounts(conversationId: chat.id, seqs: seqs))]
    }

    /// The message pane just took the keyboard: the newest message is
    /// selected, unless one was (so `.`, `r`, 1-6 act on what is highlighted).
    static func selectNewest(_ s: inout AppState) {
        if s.selectedMessage == nil, !s.bubbles.isEmpty {
            s.selected = 0
            s.scroll = 0
        }
    }

    /// 已读详情 of my group message `m`: the page opens at once and fills when the server answers.
    static func showReaders(_ m: ChatMessage, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        guard let chat = s.chat else { return [] }
        let text = MessageKinds.summary(of: m, localizer: L)
        s.mode = .readers(ReadersPage(conversationId: chat.id, seq: m.seq, text: text))
        return [.live(.readers(conversationId: chat.id, seq: m.seq))]
    }
}

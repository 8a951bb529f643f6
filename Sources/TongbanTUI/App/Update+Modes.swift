import ChatCore
import ChatViewModels
import Foundation
import TerminalUI

/// Keys while typing, and keys while an overlay has the keyboard.
extension Update {
    static func inputAction(_ action: Action, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch action {
        case .inputSend:
            if let e = s.editing { return saveEdit(e, &s) }
            let text = s.input.text
            s.input = InputLine()
            return submit(text, &s, L)
        case .inputNewline:
            s.input.insert("\n")
        case .inputEmoji:
            s.mode = .emoji(EmojiGrid())
        case .inputLeave:
            if s.replying != nil {
                // The first Esc drops the reply; what was typed stays.
                s.replying = nil
                return []
            }
            if let e = s.editing {
                // Esc keeps the original: the bar gets back what it held.
                s.input = e.stashed
                s.editing = nil
                s.status = nil
                s.focus = .messages
                return []
            }
            s.focus = s.chat == nil ? .list : .messages
            return [.saveDraft(s.input.text)]
        default: break
        }
        return []
    }

    /// Enter while editing: the new words go to the server (unless blank
    /// or unchanged), and the bar gets back what it held before.
    static func saveEdit(_ e: AppState.Editing, _ s: inout AppState) -> [Effect] {
        let text = s.input.text
        s.input = e.stashed
        s.editing = nil
        s.status = nil
        s.focus = .messages
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, text != e.original else { return [] }
        return [.edit(messageId: e.messageId, text: text)]
    }

    static func typeKey(_ key: Key, _ s: inout AppState) {
        if case .paste(let text) = key { s.input.insert(text) } else { s.input.apply(key) }
    }

    /// Text, or a slash command that sends media.
    static func submit(_ raw: String, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        guard s.chat != nil else { return [] }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var effects: [Effect]
        if parts == ["/rec"] {
            return [.startRecording]
        } else if let kind = OutgoingKinds.command(in: text) {
            // `/image PATH`, `/file PATH WITH SPACES`, …: the kind says what it takes.
            let paths = OutgoingKinds.paths(for: kind, in: text)
            guard !paths.isEmpty else { s.status = kind.usage; return [] }
            effects = [.sendFiles(kind: kind.name, paths: paths)]
        } else if parts.first == "/card" {
            // `/card ACCOUNT`: a person shared into this chat.
            guard parts.count == 2 else { s.status = L.string("ui.card.usage"); return [] }
            effects = [.sendCard(account: parts[1])]
        } else if let roomEffects = roomCommand(text, &s, L) {
            return roomEffects
        } else if let command = groupCommand(text, &s) {
            guard let command = command else { return [] }
            effects = [.group(command)]
        } else if let reply = s.replying {
            // A reply carries the `@` names picked for it, in a group.
            let isGroup = s.chat?.conversation.isMultiParty == true
            effects = [.sendReply(raw, to: reply.messageId, mentioned: isGroup ? s.mentions : [], all: isGroup && s.mentionsAll)]
            s.replying = nil
        } else if s.chat?.conversation.isMultiParty == true, !s.mentions.isEmpty || s.mentionsAll {
            effects = [.sendMention(raw, mentioned: s.mentions, all: s.mentionsAll)]
        } else {
            effects = [.sendText(raw)]
        }
        s.mentions = []
        s.mentionsAll = false
        s.scroll = 0
        s.selectedId = nil
        return effects + [.saveDraft(nil)]
    }

    static func handleMode(_ key: Key, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch s.mode {
        case .normal:
            return []
        case .confirm(.leaveGroup(let id, _)):
            s.mode = .normal
            if key == .char("y") || key == .char("Y") { return [.leaveGroup(id: id, delete: true)] }
            if key == .char("k") { return delete(id, &s) }
        case .confirm(let what):
            s.mode = .normal
            guard key == .char("y") || key == .char("Y") else { return [] }
            // The list shows what the action changed (a deleted row, a
            // revoked or cleared preview) as the store has it afterwards.
            switch what {
            case .deleteConversation(let id, _): return delete(id, &s)
            case .leaveGroup: return []
            case .kick(let uid, _): return [.group(.kickMember(uid: uid))]
            case .dissolveGroup: return [.group(.dissolve)]
            case .revoke(let id): return chat(.revoking(messageId: id), &s) + [.revoke(messageId: id)]
            case .discard(let id): return [.discard(messageId: id)]
            case .deleteForMe(let ids):
                s.marked = nil
                return [.deleteForMe(messageIds: ids)]
            case .viewFlash(let m): return [.showFlash(m, width: s.size.width, height: s.size.height)]
            case .clearHistory: return [.clearHistory]
            case .leaveRoom, .roomKick, .dropRoom: return confirmRoom(what)
            }
        case .help:
            s.mode = .normal
        case .recording(let file, _):
            if key == .enter { s.mode = .normal; return [.finishRecording(file: file, send: true)] }
            if key == .escape { s.mode = .normal; return [.finishRecording(file: file, send: false)] }
        case .flash:
            s.mode = .normal
        case .picture(let m, let index, _):
            return pictureKey(key, m, index, &s)
        case .listSearch(let q):
            return listSearchKey(key, q, &s)
        case .messageSearch(var search):
            let step = search.update(key, chatOpen: s.chat != nil)
            return run(step, page: .messageSearch(search), &s, L)
        case .newChat(var dialog):
            let step = dialog.update(key, rooms: s.rooms, L)
            return run(step, page: .newChat(dialog), &s, L)
        case .newGroup(var form):
            let step = form.update(key)
            return run(step, page: .newGroup(form), &s, L)
        case .signals(var view):
            let step = view.update(key, L)
            return run(step, page: .signals(view), &s, L)
        case .emoji(var grid):
            let step = grid.update(key)
            return run(step, page: .emoji(grid), &s, L)
        case .readers(var page):
            let step = page.update(key)
            return run(step, page: .readers(page), &s, L)
        case .roomDirectory, .newRoom, .roomPage:
            return roomPageKey(key, &s, L)
        case .favorites(var pick):
            let step = pick.update(key)
            return run(step, page: .favorites(pick), &s, L)
        case .open(var pick):
            let step = pick.update(key)
            return run(step, page: .open(pick), &s, L)
        case .favorite(var page):
            let step = page.update(key)
            return run(step, page: .favorite(page), &s, L)
        case .actions(let pick):
            return menuKey(key, pick, &s, L)
        case .forward(var picker):
            let step = picker.update(key, conversations: s.list.conversations)
            // Forwarded: the marks are done with.
            if step.next == .close, !step.effects.isEmpty { s.marked = nil }
            return run(step, page: .forward(picker), &s, L)
        case .record(let record, let i):
            // j/k scroll the record; any other key closes it.
            var pick = Pick(record.items, index: i)
            s.mode = pick.move(key) ? .record(record, pick.index) : .normal
        case .settings(let member):
            guard let chat = s.chat else { s.mode = .normal; return [] }
            var page = SettingsPage(member: member)
            let step = page.update(key, chat)
            return run(step, page: .settings(member: page.member), &s, L)
        case .contacts, .addFriend, .me, .peer:
            return peopleKey(key, &s, L)
        }
        return []
    }

    /// Enter on a message: what its kind says Enter does.
    static func perform(_ action: MessageAction, on m: ChatMessage, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch action {
        case .none: return []
        case .confirmFlash:
            s.mode = .confirm(.viewFlash(m))
            return []
        case .play: return s.playingId == m.id ? [.stopPlaying] : [.play(m)]
        case .showPictures: return [.showPicture(m, index: 0, width: s.size.width, height: s.size.height)]
        case .save: return [.saveFile(m, thenOpen: false)]
        case .showRecord:
            if let record = m.content.merged { s.mode = .record(record, 0) }
            return []
        case .openProfile:
            guard let uid = m.content.card?.uid else { return [] }
            return [.people(.openPeer(uid: uid))]
        case .showQuoted:
            guard let q = m.content.quote?.quote, let seq = q.seq else { return [] }
            s.status = q.revoked ? L.string("ui.quoteRevoked") : nil
            return [.reveal(seq: seq, messageId: q.clientMsgID)]
        }
    }

    /// The full-screen picture: ←/→ (h/l) walk a multi-image message, `o`
    /// opens the picture in the system viewer, any other key closes it.
    static func pictureKey(_ key: Key, _ m: ChatMessage, _ index: Int, _ s: inout AppState) -> [Effect] {
        let count = MessagePictures.of(m).count
        switch key {
        case .left, .char("h"):
            if index > 0 { return [.showPicture(m, index: index - 1, width: s.size.width, height: s.size.height)] }
        case .right, .char("l"):
            if index + 1 < count { return [.showPicture(m, index: index + 1, width: s.size.width, height: s.size.height)] }
        case .char("o"):
            return [.openPicture(m, index: index)]
        default:
            s.mode = .normal
        }
        return []
    }

    /// `/` in the list: the conversations whose names match, then the
    /// messages of every conversation that do (v3); the selection walks
    /// both, Enter opens a conversation or goes to a message.
    static func listSearchKey(_ key: Key, _ q: String, _ s: inout AppState) -> [Effect] {
        var query: String?
        let convs = s.visibleConversations
        switch key {
        case .escape:
            s.mode = .normal
            s.listHits = []
        case .enter:
            s.mode = .normal
            defer { s.listHits = [] }
            if s.listIndex < convs.count { return open(convs[s.listIndex], &s) }
            let i = s.listIndex - convs.count
            guard i < s.listHits.count else { return [] }
            let h = s.listHits[i]
            return [.openMessage(conversationId: h.conversationId, name: h.conversationName, seq: h.seq, messageId: h.clientMsgId)]
        case .backspace: query = String(q.dropLast())
        case .down: s.listIndex = min(s.listIndex + 1, max(0, convs.count + s.listHits.count - 1))
        case .up: s.listIndex = max(0, s.listIndex - 1)
        case .char(let c): query = q + String(c)
        case .paste(let text): query = q + text
        default: break
        }
        guard let query else { return [] }
        s.mode = .listSearch(query)
        s.listIndex = 0
        if query.trimmingCharacters(in: .whitespaces).isEmpty { s.listHits = []; return [] }
        return [.searchEverywhere(query)]
    }

    /// The message menu: j/k move, Enter runs the highlighted item, an
    /// item's own key runs it, Esc closes.
    static func menuKey(_ key: Key, _ pick: Pick<AppState.MenuItem>, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var pick = pick
        if pick.move(key) { s.mode = .actions(pick); return [] }
        switch key {
        case .escape, .char("q"): s.mode = .normal
        case .enter:
            s.mode = .normal
            guard let item = pick.current else { return [] }
            // 多选 from a message's menu starts with that message marked (seed 004).
            if item.action == .messagesSelect, s.marked == nil, let m = s.selectedMessage {
                s.marked = [m.id]
                s.status = L.string("ui.selecting", ["n": "1"])
                return []
            }
            return messagesAction(item.action, &s, L)
        default:
            // The key of an item (the message pane's keys, as rebound), or a reaction.
            let items = pick.items
            guard let action = s.keyMap.action(for: key, in: .messages),
                  items.contains(where: { $0.action == action }) || QuickReactions.actions.contains(action) && items.contains(where: { $0.action == .messagesReact1 })
            else { return [] }
            s.mode = .normal
            return messagesAction(action, &s, L)
        }
        return []
    }

}

/// The pictures of an image or multi-image message, each with the URL it
/// was sent with.
enum MessagePictures {
    static func of(_ m: ChatMessage) -> [(key: String, url: String)] {
        if m.type == .multiImage {
            let keys = m.multiObjectKeys ?? []
            let urls = m.multiImageUrls ?? []
            return keys.enumerated().map { (key: $0.element, url: $0.offset < urls.count ? urls[$0.offset] : "") }
        }
        guard m.type == .image, let key = m.objectKey else { return [] }
        return [(key: key, url: m.imageUrl ?? "")]
    }
}

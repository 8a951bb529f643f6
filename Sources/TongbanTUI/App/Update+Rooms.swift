import ChatCore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Rooms (PROTOCOL.md v3 "Rooms") in the full-screen client: the rooms I
/// am in, their pushes, the `n` dialog's room rows, a room's page and its
/// slash commands. Nothing of a room counts as unread: a room with
/// something I have not seen is only drawn bold.
extension Update {
    static func rooms(_ event: RoomEvent, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch event {
        case .directory(let query, let found):
            if case .roomDirectory(var d) = s.mode, d.query == query {
                d.rooms = found
                d.index = min(d.index, max(0, found.count - 1))
                s.mode = .roomDirectory(d)
            }
            return []
        case .bans(let rid, let users):
            if case .roomPage(var page) = s.mode, s.chat.flatMap({ s.room($0.id) })?.info.roomId == rid {
                page.bans = users
                page.selected = 0
                s.mode = .roomPage(page)
                if users.isEmpty { s.status = L.string("ui.room.noBans") }
            }
            return []
        default:
            let step = s.joined.update(event, me: s.myImUid, L)
            return apply(step, &s)
        }
    }

    /// A room's push, to the rooms' own update.
    static func roomPushed(_ push: RoomPush, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        let seen = s.chat?.isAtBottom == true ? s.chat?.id : nil
        let step = s.joined.pushed(push, me: s.myImUid, seen: seen, L)
        return apply(step, &s)
    }

    /// What the rooms' update asked of the list and the open chat.
    static func apply(_ step: RoomsState.Step, _ s: inout AppState) -> [Effect] {
        if let words = step.status { s.status = words }
        var effects = step.effects
        if let rid = step.removed { effects += removeRoom(rid, &s) }
        effects += step.then
        if let added = step.added {
            // The conversations below move down a row: the selection stays on its row.
            if s.listIndex >= s.rooms.count - 1, !isFiltering(s) { s.listIndex += 1 }
            if !step.quietly { effects += open(added.conversation, &s) }
        }
        refreshRoomChat(&s)
        return effects
    }

    static func isFiltering(_ s: AppState) -> Bool {
        if case .listSearch = s.mode { return true }
        return false
    }

    /// The room goes from the list; its open chat closes.
    static func removeRoom(_ rid: Int, _ s: inout AppState) -> [Effect] {
        guard let i = s.joined.index(of: rid) else { return [] }
        let id = s.rooms[i].id
        s.joined.entries.remove(at: i)
        if s.listIndex > i, !isFiltering(s) { s.listIndex -= 1 }
        if case .roomPage = s.mode, s.chat?.id == id { s.mode = .normal }
        let closing = s.chat?.id == id ? close(&s) : []
        s.listIndex = min(s.listIndex, max(0, s.visibleConversations.count - 1))
        return closing
    }

    /// The open room's chat names senders and completes `@` from who is
    /// here; opening it counts as seeing what was said.
    static func refreshRoomChat(_ s: inout AppState) {
        guard let id = s.chat?.id, let i = s.rooms.firstIndex(where: { $0.id == id }) else { return }
        let room = s.joined.entries[i]
        s.chat?.senderNames = room.names
        s.chat?.members = room.members
        if s.chat?.isAtBottom == true { s.joined.entries[i].unseen = false }
    }

    // MARK: - Keys

    /// The list's keys on a room's row: Enter opens it, `d` leaves (y/N);
    /// pins and mutes are not for rooms. nil: the key is the list's as usual.
    static func roomListAction(_ action: Action, _ c: Conversation, _ s: inout AppState, _ L: Localizer) -> [Effect]? {
        guard let room = s.room(c.id) else { return nil }
        switch action {
        case .listDelete:
            s.mode = .confirm(.leaveRoom(roomId: room.info.roomId, name: TerminalSanitizer.oneLine(room.info.name)))
            return []
        case .listPin, .listMute:
            s.status = L.string("ui.room.notForRooms")
            return []
        default:
            return nil
        }
    }

    /// `/leave`, and the owner's `/rename NAME` and `/topic TEXT`, in a
    /// room's input bar. nil: not a room command; `.some([])` with the usage
    /// on the status line when it is one typed wrong.
    static func roomCommand(_ text: String, _ s: inout AppState, _ L: Localizer) -> [Effect]? {
        guard let id = s.chat?.id, let room = s.room(id), text.hasPrefix("/") else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        let rid = room.info.roomId
        switch parts[0] {
        case "/leave": return [.room(.leave(roomId: rid))]
        case "/rename":
            guard room.isOwner(s.myImUid) else { s.status = L.string("ui.room.ownerOnly"); return [] }
            guard GroupRules.isValidName(rest) else { s.status = L.string("ui.room.usage.rename"); return [] }
            return [.room(.update(roomId: rid, name: rest, topic: nil))]
        case "/topic":
            guard room.isOwner(s.myImUid) else { s.status = L.string("ui.room.ownerOnly"); return [] }
            guard rest.count <= RoomRules.topicMaxLength else {
                s.status = L.string("ui.room.usage.topic", ["n": String(RoomRules.topicMaxLength)])
                return []
            }
            return [.room(.update(roomId: rid, name: nil, topic: rest))]
        default: return nil
        }
    }

    /// A key on a room page, to the page's own update.
    static func roomPageKey(_ key: Key, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch s.mode {
        case .roomDirectory(var d):
            let step = d.update(key, mine: s.rooms)
            return run(step, page: .roomDirectory(d), &s, L)
        case .newRoom(var form):
            let step = form.update(key)
            return run(step, page: .newRoom(form), &s, L)
        case .roomPage(var page):
            guard let id = s.chat?.id, let room = s.room(id) else { s.mode = .normal; return [] }
            let step = page.update(key, room, me: s.myImUid)
            return run(step, page: .roomPage(page), &s, L)
        default:
            return []
        }
    }

    /// y on a room's confirmation.
    static func confirmRoom(_ what: AppState.Confirm) -> [Effect] {
        switch what {
        case .leaveRoom(let rid, _): return [.room(.leave(roomId: rid))]
        case .roomKick(let rid, let uid, _, let ban): return [.room(.kick(roomId: rid, uid: uid, ban: ban))]
        case .dropRoom(let rid, _): return [.room(.drop(roomId: rid))]
        default: return []
        }
    }
}

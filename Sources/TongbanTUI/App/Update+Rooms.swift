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
        case .entered(let response, let again):
            return roomEntered(response, again: again, &s, L)
        case .filled(let id, let messages):
            guard let i = s.rooms.firstIndex(where: { $0.id == id }) else { return [] }
            s.rooms[i].heard(messages, after: s.rooms[i].lastSeq, me: s.myImUid, L)
            let needs = s.rooms[i].presence.filled(messages)
            refreshRoomChat(&s)
            return roomNeeds(needs, s.rooms[i].info)
        case .present(let rid, let users):
            guard let i = s.rooms.firstIndex(where: { $0.info.roomId == rid }) else { return [] }
            s.rooms[i].presence.present(users)
            refreshRoomChat(&s)
            return []
        case .left(let rid, let why):
            if let why { s.status = words(why, L) }
            let unique = s.rooms.first { $0.info.roomId == rid }?.info.uniqueName
            return removeRoom(rid, &s) + (unique.map { doneReentering($0, &s) } ?? [])
        case .vanished(let unique):
            guard let room = s.rooms.first(where: { $0.info.uniqueName == unique }) else { return doneReentering(unique, &s) }
            s.status = L.string("ui.room.cannotReenter", ["name": TerminalSanitizer.oneLine(room.info.name)])
            return removeRoom(room.info.roomId, &s) + doneReentering(unique, &s)
        case .reenterFailed(let unique, let reason):
            guard let room = s.rooms.first(where: { $0.info.uniqueName == unique }) else { return doneReentering(unique, &s) }
            s.status = L.string("ui.room.reenterFailed", ["name": TerminalSanitizer.oneLine(room.info.name), "reason": ServerWords.describe(reason.error, L)])
            return removeRoom(room.info.roomId, &s) + doneReentering(unique, &s)
        case .bans(let rid, let users):
            if case .roomPage(var page) = s.mode, s.chat.flatMap({ s.room($0.id) })?.info.roomId == rid {
                page.bans = users
                page.selected = 0
                s.mode = .roomPage(page)
                if users.isEmpty { s.status = L.string("ui.room.noBans") }
            }
            return []
        case .changed(let info):
            if let i = s.rooms.firstIndex(where: { $0.info.roomId == info.roomId }) { s.rooms[i].info = info }
            return []
        }
    }

    /// In a room: a new one goes last among the rooms and opens; entering
    /// again (after a reconnect) keeps its place and fills what was said
    /// while the connection was down.
    static func roomEntered(_ entered: EnterRoomResponse, again: Bool, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        let fresh = RoomEntry(entered, me: s.myImUid, L)
        let done = again ? doneReentering(fresh.info.uniqueName, &s) : []
        guard let i = s.rooms.firstIndex(where: { $0.id == fresh.id }) else {
            // The conversations below move down a row: the selection stays on its row.
            if s.listIndex >= s.rooms.count, !isFiltering(s) { s.listIndex += 1 }
            s.rooms.append(fresh)
            s.status = L.string("ui.room.entered", ["name": TerminalSanitizer.oneLine(fresh.info.name)])
            return done + roomNeeds(fresh.presence.afterEntering, fresh.info) + (again ? [] : open(fresh.conversation, &s))
        }
        s.rooms[i].heard(entered.messages, after: s.rooms[i].lastSeq, me: s.myImUid, L)
        let needs = s.rooms[i].presence.enteredAgain(entered)
        refreshRoomChat(&s)
        return done + roomNeeds(needs, s.rooms[i].info)
    }

    /// What a room's presence needs, as the runner's effects.
    static func roomNeeds(_ needs: [RoomPresence.Need], _ room: RoomInfo) -> [Effect] {
        needs.map { need in
            switch need {
            case .fill(let after, let before): .room(.fill(room, after: after, before: before))
            case .present: .room(.refreshPresent(roomId: room.roomId))
            }
        }
    }

    /// A room entered again (or given up): once none is left, the send
    /// queue goes on (a message to a room before it is entered is refused).
    static func doneReentering(_ unique: String, _ s: inout AppState) -> [Effect] {
        guard s.reentering.remove(unique) != nil, s.reentering.isEmpty else { return [] }
        return [.resumeSending]
    }

    static func isFiltering(_ s: AppState) -> Bool {
        if case .listSearch = s.mode { return true }
        return false
    }

    /// A room's push: kept in the store (its chat follows the store), and
    /// what it says of who is here learnt; a seq past a gap fills the gap.
    static func roomPushed(_ push: RoomPush, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch push {
        case .info(let info):
            if let i = s.rooms.firstIndex(where: { $0.info.roomId == info.roomId }) { s.rooms[i].info = info }
            return []
        case .update(let m):
            guard s.room(m.conversationId) != nil else { return [] }
            return [.room(.keepUpdate(m))]
        case .message(let m):
            guard let i = s.rooms.firstIndex(where: { $0.id == m.conversationId }) else { return [] }
            var room = s.rooms[i]
            let news = room.heard([m], after: room.lastSeq, me: s.myImUid, L)
            let (needs, ended) = room.presence.pushed(m, me: s.myImUid)
            let seen = s.chat?.id == room.id && s.chat?.isAtBottom == true
            if news, !seen { room.unseen = true }
            s.rooms[i] = room
            // The gap is asked for first: the store keeps what came in order.
            let effects = roomNeeds(needs, room.info) + [.room(.keep(m, room.info))]
            if let ended {
                let name = TerminalSanitizer.oneLine(room.info.name)
                s.status = L.string(ended == .dropped ? "ui.room.dropped" : "ui.room.removed", ["name": name])
                return effects + removeRoom(room.info.roomId, &s)
            }
            refreshRoomChat(&s)
            return effects
        }
    }

    /// Back online: every room I was in is entered again (offline was
    /// left), and the send queue goes on once they are (`doneReentering`).
    static func backOnline(_ s: inout AppState) -> [Effect] {
        guard !s.rooms.isEmpty else { return [.resumeSending] }
        s.reentering = Set(s.rooms.map(\.info.uniqueName))
        return s.rooms.map { .room(.enter(unique: $0.info.uniqueName, again: true)) }
    }

    /// The room goes from the list; its open chat closes.
    static func removeRoom(_ rid: Int, _ s: inout AppState) -> [Effect] {
        guard let i = s.rooms.firstIndex(where: { $0.info.roomId == rid }) else { return [] }
        let id = s.rooms[i].id
        s.rooms.remove(at: i)
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
        s.chat?.senderNames = s.rooms[i].names
        s.chat?.members = s.rooms[i].members
        if s.chat?.isAtBottom == true { s.rooms[i].unseen = false }
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

import ChatCore
import ChatSync
import TerminalUI
import Foundation

/// A room I am in (PROTOCOL.md v3 "Rooms"): while I am there, it sits at
/// the top of the list; quitting or losing the connection leaves it, and
/// the client enters again when the connection comes back. Being there
/// (who is here, the seqs held, the gaps to fill) is ChatSync's
/// `RoomPresence`, the same as `tongban room enter`'s; the row is this.
struct RoomEntry: Equatable {
    var presence: RoomPresence
    /// Something was said here that I have not seen: the row is bold.
    var unseen = false
    var preview = ""
    /// Unix milliseconds of the newest message.
    var lastTime = 0

    init(_ entered: EnterRoomResponse, me: String, _ L: Localizer) {
        presence = RoomPresence(entered)
        heard(entered.messages, after: 0, me: me, L)
    }

    var info: RoomInfo {
        get { presence.info }
        set { presence.info = newValue }
    }
    var present: [UserBasicInfo] { presence.present }
    var names: [String: String] { presence.names }
    var lastSeq: Int { presence.lastSeq }
    var id: String { info.conversationId }

    /// The list's row and the chat's conversation: no unread count, ever.
    var conversation: Conversation {
        Conversation(id: info.conversationId, targetUid: 0, nickname: info.name, lastMessagePreview: preview,
                     lastMessageTime: lastTime, maxSeq: lastSeq, readSeq: lastSeq, memberCount: info.presentCount)
    }

    /// Those present as a chat's members (`@` completion, mentions): the owner first.
    var members: [GroupMember] {
        present.map { u in
            GroupMember(uid: u.uid, username: u.username, role: ConversationIDHelper.imUid(u.uid) == info.ownerId ? "owner" : "member",
                        joinedAt: 0, account: u.account)
        }.sorted { $0.isOwner && !$1.isOwner }
    }

    func isOwner(_ me: String) -> Bool { info.ownerId == me }

    /// What the row shows of messages that came (oldest first) after the
    /// seq `held`: the preview of the newest said, and whether someone else
    /// said something (not a notice, not a revoke's control message): news
    /// that makes the row bold.
    @discardableResult
    mutating func heard(_ messages: [WireMessage], after held: Int, me: String, _ L: Localizer) -> Bool {
        var news = false, newest = held
        for m in messages {
            let isNewest = m.seq > newest
            newest = max(newest, m.seq)
            guard !ContentType.isRoomNotice(m.contentType) else { continue }
            let said = IMMessageMapper.map(m, currentUID: me)
            guard !said.isControl else { continue }
            if m.sendID != me { news = true }
            if isNewest {
                lastTime = m.sendTime
                preview = MessageKinds.summary(of: said, localizer: L)
            }
        }
        return news
    }
}

/// `n` → 房间目录: rooms found for a query, most present first.
struct RoomDirectory: Equatable {
    var query = ""
    /// nil until the server answered for `query`.
    var rooms: [RoomInfo]?
    var index = 0
}

/// `n` → 创建房间: the name typed in `n`, then the unique name and a topic.
struct NewRoomForm: Equatable {
    enum Field: Equatable { case unique, topic }
    var name: String
    var unique = ""
    var topic = ""
    var field = Field.unique
}

/// `,` in a room: who is here (the owner picks one to remove), or, after
/// `u`, whom the owner banned (to let back in).
struct RoomPage: Equatable {
    var selected = 0
    /// The banned, once read (nil: the page shows who is here).
    var bans: [UserBasicInfo]?
}

extension RoomDirectory {
    /// Typing searches the rooms (name or unique name), ↑/↓ move, Enter
    /// enters the one highlighted (or opens it, if I am in it), Esc closes.
    mutating func update(_ key: Key, mine: [RoomEntry]) -> Step {
        let count = rooms?.count ?? 0
        switch key {
        case .escape: return .close()
        case .down: index = min(index + 1, max(0, count - 1))
        case .up: index = max(0, index - 1)
        case .enter:
            guard let rooms, index < rooms.count else { return .stay }
            let unique = rooms[index].uniqueName
            if let entry = mine.first(where: { $0.info.uniqueName == unique }) { return Step(next: .open(entry.conversation)) }
            return .close([.room(.enter(unique: unique, again: false))])
        case .backspace: self = RoomDirectory(query: String(query.dropLast()))
        case .char(let c): self = RoomDirectory(query: query + String(c))
        case .paste(let text): self = RoomDirectory(query: query + TerminalSanitizer.oneLine(text))
        default: return .stay
        }
        return rooms == nil ? .effects([.room(.directory(query))]) : .stay
    }
}

extension NewRoomForm {
    /// The unique name (`[a-z0-9_]`, 3-32), then a topic (may stay empty);
    /// Enter goes on, then creates; Tab switches.
    mutating func update(_ key: Key) -> Step {
        switch (field, key) {
        case (_, .escape): return .close()
        case (.unique, .tab), (.unique, .enter):
            if GroupRules.isValidUniqueName(unique) { field = .topic }
        case (.topic, .tab), (.topic, .backTab):
            field = .unique
        case (.topic, .enter):
            return .close([.room(.create(name: name, unique: unique, topic: topic.trimmingCharacters(in: .whitespaces)))])
        case (.unique, .backspace): unique = String(unique.dropLast())
        case (.unique, .char(let c)): GroupRules.type(c, into: &unique)
        case (.topic, .backspace): topic = String(topic.dropLast())
        case (.topic, .char(let c)): if topic.count < RoomRules.topicMaxLength { topic.append(c) }
        case (.topic, .paste(let text)): topic = String((topic + TerminalSanitizer.oneLine(text)).prefix(RoomRules.topicMaxLength))
        default: break
        }
        return .stay
    }
}

extension RoomPage {
    /// `,` in a room: ↑/↓ pick someone here; the owner has `r` rename and
    /// `t` topic (in the input bar), `x` remove, `b` remove and ban, `u`
    /// the banned (then Enter lets the one picked back in), `D` drop; `l`
    /// leaves. What destroys asks y/N. Esc (or any other key) closes.
    mutating func update(_ key: Key, _ room: RoomEntry, me: String) -> Step {
        let rid = room.info.roomId, name = TerminalSanitizer.oneLine(room.info.name)
        let owner = room.isOwner(me)
        let people = bans ?? room.members.map { UserBasicInfo(uid: $0.uid, username: $0.username, account: $0.account) }
        switch key {
        case .down, .char("j"): selected = min(selected + 1, max(0, people.count - 1))
        case .up, .char("k"): selected = max(0, selected - 1)
        case .char("l"): return Step(next: .confirm(.leaveRoom(roomId: rid, name: name)))
        case .char("r") where owner: return Step(next: .type("/rename " + name))
        case .char("t") where owner: return Step(next: .type("/topic " + TerminalSanitizer.oneLine(room.info.topic)))
        case .char("x") where owner && bans == nil, .char("b") where owner && bans == nil:
            guard selected < people.count, ConversationIDHelper.imUid(people[selected].uid) != me else { return .stay }
            let who = people[selected]
            return Step(next: .confirm(.roomKick(roomId: rid, uid: who.uid, name: TerminalSanitizer.oneLine(who.username),
                                                 ban: key == .char("b"))))
        case .char("u") where owner && bans == nil:
            return .effects([.room(.loadBans(roomId: rid))])
        case .enter where owner && bans != nil, .char("u") where owner && bans != nil:
            guard selected < people.count else { return .stay }
            let who = people[selected]
            bans?.remove(at: selected)
            selected = max(0, min(selected, (bans?.count ?? 1) - 1))
            return .effects([.room(.unban(roomId: rid, uid: who.uid))])
        case .char("D") where owner: return Step(next: .confirm(.dropRoom(roomId: rid, name: name)))
        default: return .close()
        }
        return .stay
    }
}

/// The rooms I am in, in the order entered (the list's first rows), and
/// those being entered again after a reconnect: the send queue waits for
/// them, or a message to a room would be refused. Its update takes what
/// the room effects and the socket say and answers what the app must do
/// about its list and its open chat (`Update.apply(_:RoomsState.Step)`).
struct RoomsState: Equatable {
    var entries: [RoomEntry] = []
    var reentering: Set<String> = []

    /// What an event asks of the app, in order: `effects`, then the room
    /// `removed` taken off the list (its chat closes), then `then`; a room
    /// `added` goes last among the rooms and opens unless `quietly`.
    struct Step: Equatable {
        var effects: [Effect] = []
        var removed: Int?
        var then: [Effect] = []
        var added: RoomEntry?
        var quietly = false
        var status: String?
    }

    func index(of roomId: Int) -> Int? { entries.firstIndex { $0.info.roomId == roomId } }

    /// What the room effects found, and what the socket pushed (`seen`:
    /// the room whose chat is open at its newest message).
    mutating func update(_ event: RoomEvent, me: String, _ L: Localizer) -> Step {
        switch event {
        case .directory, .bans:
            return Step()   // the pages' (the router's)
        case .entered(let response, let again):
            return entered(response, again: again, me: me, L)
        case .filled(let id, let messages):
            guard let i = entries.firstIndex(where: { $0.id == id }) else { return Step() }
            entries[i].heard(messages, after: entries[i].lastSeq, me: me, L)
            return Step(effects: Self.needs(entries[i].presence.filled(messages), entries[i].info))
        case .present(let rid, let users):
            if let i = index(of: rid) { entries[i].presence.present(users) }
            return Step()
        case .left(let rid, let why):
            let unique = entries.first { $0.info.roomId == rid }?.info.uniqueName
            return Step(removed: rid, then: unique.map { doneReentering($0) } ?? [], status: why.map { Update.words($0, L) })
        case .vanished(let unique):
            guard let room = entries.first(where: { $0.info.uniqueName == unique }) else { return Step(then: doneReentering(unique)) }
            return Step(removed: room.info.roomId, then: doneReentering(unique),
                        status: L.string("ui.room.cannotReenter", ["name": TerminalSanitizer.oneLine(room.info.name)]))
        case .reenterFailed(let unique, let reason):
            guard let room = entries.first(where: { $0.info.uniqueName == unique }) else { return Step(then: doneReentering(unique)) }
            return Step(removed: room.info.roomId, then: doneReentering(unique),
                        status: L.string("ui.room.reenterFailed", ["name": TerminalSanitizer.oneLine(room.info.name),
                                                                   "reason": ServerWords.describe(reason.error, L)]))
        case .changed(let info):
            if let i = index(of: info.roomId) { entries[i].info = info }
            return Step()
        }
    }

    /// In a room: a new one is added (and opens, unless entered again
    /// after a reconnect); one entered again keeps its place and fills
    /// what was said while the connection was down.
    mutating func entered(_ response: EnterRoomResponse, again: Bool, me: String, _ L: Localizer) -> Step {
        let fresh = RoomEntry(response, me: me, L)
        let done = again ? doneReentering(fresh.info.uniqueName) : []
        guard let i = entries.firstIndex(where: { $0.id == fresh.id }) else {
            entries.append(fresh)
            return Step(effects: done + Self.needs(fresh.presence.afterEntering, fresh.info), added: fresh, quietly: again,
                        status: L.string("ui.room.entered", ["name": TerminalSanitizer.oneLine(fresh.info.name)]))
        }
        entries[i].heard(response.messages, after: entries[i].lastSeq, me: me, L)
        return Step(effects: done + Self.needs(entries[i].presence.enteredAgain(response), entries[i].info))
    }

    /// A room's push: kept in the store (its chat follows the store), and
    /// what it says of who is here learnt; a seq past a gap fills the gap.
    /// `seen`: the conversation open at its newest message.
    mutating func pushed(_ push: RoomPush, me: String, seen: String?, _ L: Localizer) -> Step {
        switch push {
        case .info(let info):
            if let i = index(of: info.roomId) { entries[i].info = info }
            return Step()
        case .update(let m):
            guard entries.contains(where: { $0.id == m.conversationId }) else { return Step() }
            return Step(effects: [.room(.keepUpdate(m))])
        case .message(let m):
            guard let i = entries.firstIndex(where: { $0.id == m.conversationId }) else { return Step() }
            let news = entries[i].heard([m], after: entries[i].lastSeq, me: me, L)
            let (needs, ended) = entries[i].presence.pushed(m, me: me)
            if news, seen != entries[i].id { entries[i].unseen = true }
            let info = entries[i].info
            // The gap is asked for first: the store keeps what came in order.
            var step = Step(effects: Self.needs(needs, info) + [.room(.keep(m, info))])
            if let ended {
                step.removed = info.roomId
                step.status = L.string(ended == .dropped ? "ui.room.dropped" : "ui.room.removed",
                                       ["name": TerminalSanitizer.oneLine(info.name)])
            }
            return step
        }
    }

    /// Back online: every room I was in is entered again (offline was
    /// left), and the send queue goes on once they are (`doneReentering`).
    mutating func backOnline() -> [Effect] {
        guard !entries.isEmpty else { return [.resumeSending] }
        reentering = Set(entries.map(\.info.uniqueName))
        return entries.map { .room(.enter(unique: $0.info.uniqueName, again: true)) }
    }

    /// A room entered again (or given up): once none is left, the send
    /// queue goes on.
    mutating func doneReentering(_ unique: String) -> [Effect] {
        guard reentering.remove(unique) != nil, reentering.isEmpty else { return [] }
        return [.resumeSending]
    }

    /// What a room's presence needs, as the runner's effects.
    static func needs(_ needs: [RoomPresence.Need], _ room: RoomInfo) -> [Effect] {
        needs.map { need in
            switch need {
            case .fill(let after, let before): .room(.fill(room, after: after, before: before))
            case .present: .room(.refreshPresent(roomId: room.roomId))
            }
        }
    }
}

import ChatCore
import TerminalUI

/// Rooms' overlays (PROTOCOL.md v3 "Rooms"): the directory, the new-room
/// form, a room's page. Names, topics and people came from others: every
/// one is sanitised to one line.
enum RoomWidgets {
    /// The directory: the search, then each room with how many are here and its topic.
    static func directoryLines(_ d: RoomDirectory, mine: [RoomEntry], _ L: Localizer, rows: Int) -> [(String, Style)] {
        var lines: [(String, Style)] = [(L.string("ui.rooms.search") + TerminalSanitizer.oneLine(d.query) + "▏", Theme.prompt)]
        guard let rooms = d.rooms else {
            lines.append((L.string("ui.rooms.loading"), Theme.dim))
            return lines
        }
        if rooms.isEmpty { lines.append((L.string("ui.rooms.none"), Theme.dim)) }
        // Two lines a room, in a window that keeps the selected one in sight.
        let room = max(1, (rows - lines.count - 1) / 2)
        let first = rooms.count <= room ? 0 : min(max(0, d.index - room / 2), rooms.count - room)
        for (n, r) in rooms.enumerated().dropFirst(first).prefix(room) {
            let here = mine.contains { $0.info.roomId == r.roomId } ? "  ✓" : ""
            let head = "# \(TerminalSanitizer.oneLine(r.name))  \(TerminalSanitizer.oneLine(r.uniqueName))  "
                + L.string("ui.room.present", ["count": String(r.presentCount)]) + here
            lines.append((head, n == d.index ? Theme.selected : Style()))
            let topic = r.topic.isEmpty ? L.string("ui.room.noTopic") : TerminalSanitizer.oneLine(r.topic)
            lines.append(("  " + TextWrap.truncate(topic, width: 60), Theme.dim))
        }
        lines.append((L.string("ui.rooms.hint"), Theme.dim))
        return lines
    }

    /// The new-room form: the name typed in `n`, the unique name, the topic.
    static func newRoomLines(_ f: NewRoomForm, _ L: Localizer) -> [(String, Style)] {
        let onUnique = f.field == .unique
        return [
            (L.string("ui.newRoom.name", ["name": TerminalSanitizer.oneLine(f.name)]), Style()),
            (L.string("ui.newRoom.unique") + f.unique + (onUnique ? "▏" : ""), onUnique ? Theme.prompt : Style()),
            (L.string("ui.newRoom.topic") + TerminalSanitizer.oneLine(f.topic) + (onUnique ? "" : "▏"), onUnique ? Style() : Theme.prompt),
            (L.string(onUnique ? "ui.newRoom.uniqueHint" : "ui.newRoom.topicHint"), Theme.dim),
        ]
    }

    /// `,` in a room: name, unique name, topic, who is here (or whom the
    /// owner banned), then the keys: the owner's, and leaving.
    static func pageLines(_ room: RoomEntry, _ page: RoomPage, me: String, _ L: Localizer, rows: Int) -> [(String, Style)] {
        let owner = room.isOwner(me)
        var out: [(String, Style)] = [
            ("# " + TerminalSanitizer.oneLine(room.info.name) + ConversationMarks.count(room.conversation, L), Theme.title),
            (L.string("ui.room.unique", ["unique": TerminalSanitizer.oneLine(room.info.uniqueName)]), Style()),
            (L.string("ui.room.topic", ["topic": room.info.topic.isEmpty ? L.string("ui.room.noTopic")
                                                                          : TerminalSanitizer.oneLine(room.info.topic)]), Style()),
        ]
        var menu: [(String, Style)] = []
        if owner && page.bans == nil {
            menu.append((L.string("ui.room.menu.change"), Style()))
            menu.append((L.string("ui.room.menu.remove"), Style()))
            menu.append((L.string("ui.room.menu.bans"), Style()))
            menu.append(("D  " + L.string("ui.room.menu.drop"), Theme.error))
        }
        if page.bans != nil { menu.append((L.string("ui.room.menu.unban"), Style())) }
        menu.append(("l  " + L.string("ui.room.menu.leave"), Theme.error))
        out.append(("", Style()))
        let people: [(name: String, owner: Bool)]
        if let bans = page.bans {
            out.append((L.string("ui.room.bans", ["n": String(bans.count)]), Theme.dim))
            people = bans.map { (TerminalSanitizer.oneLine($0.username + ($0.account.map { "  @" + $0 } ?? "")), false) }
        } else {
            people = room.members.map { (TerminalSanitizer.oneLine($0.username + ($0.account.map { "  @" + $0 } ?? "")), $0.isOwner) }
        }
        // A window that keeps the selected one in sight, and how many more there are.
        let space = max(1, rows - out.count - menu.count - 2)
        let first = people.count <= space ? 0 : min(max(0, page.selected - space / 2), people.count - space)
        for (i, p) in people.enumerated().dropFirst(first).prefix(space) {
            let role = p.owner ? "  " + L.string("ui.room.owner") : ""
            let style = owner && i == page.selected ? Theme.selected : p.owner ? Theme.prompt : Style()
            out.append(("· " + p.name + role, style))
        }
        let hidden = people.count - min(space, people.count)
        if hidden > 0 { out.append((L.string("ui.group.more", ["n": String(hidden)]), Theme.dim)) }
        out.append(("", Style()))
        return out + menu
    }
}

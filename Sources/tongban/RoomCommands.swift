import ArgumentParser
import ChatCore
import ChatSync
import Foundation

/// `tongban room ...`: live rooms from the command line (PROTOCOL.md v3
/// "Rooms"). A room is where you are while you are connected: creating and
/// entering open the push socket first, and closing it leaves.
struct RoomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room", abstract: "Create, find, enter and manage live rooms.",
        subcommands: [Create.self, Ls.self, Enter.self, Present.self, Kick.self, Unban.self, Drop.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a room; you become its owner.")
        @OptionGroup var common: Common
        @Option(help: "Unique name others enter by: 3-32 of a-z, 0-9 and _.") var unique: String
        @Option(help: "What the room is about (at most 300 characters).") var topic: String?
        @Argument(help: "The room's name, 1-64 characters.") var name: String

        func run() async throws {
            let session = try await common.session()
            try await comeOnline(session)
            let info = try await server(session, failure: "cli.room.createFailed") {
                try await session.createRoom(CreateRoomRequest(name: name, uniqueName: unique, topic: topic))
            }
            out(L.string("cli.room.created", ["name": info.name, "unique": info.uniqueName]))
        }
    }

    struct Ls: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "The room directory, most present first.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false
        @Argument(help: "Part of a room's name or unique name.") var query: String = ""

        func run() async throws {
            let session = try await common.session()
            let rooms = try await server(session) { try await session.rooms(query: query) }
            if json { return try jsonOut(rooms) }
            if rooms.isEmpty { out(L.string("cli.room.none")) }
            for r in rooms {
                out(L.string("cli.room.row", ["unique": r.uniqueName, "name": TerminalSanitizer.oneLine(r.name),
                                              "count": String(r.presentCount), "topic": TerminalSanitizer.oneLine(r.topic)]))
            }
        }
    }

    struct Enter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enter",
            abstract: "Enter a room: print its newest messages, then each new one; send each line read from stdin.",
            discussion: "Leaves at the end of input; Ctrl-C closes the connection, which leaves too.")
        @OptionGroup var common: Common
        @Argument(help: "The room's unique name.") var unique: String

        func run() async throws {
            let session = try await common.session()
            try await comeOnline(session)
            // Listening before entering: nothing pushed meanwhile is missed.
            let (pushed, continuation) = AsyncStream<RoomEvent>.makeStream()
            let observer = session.sync.observe { update in
                switch update {
                case .room(let push): continuation.yield(.push(push))
                // Back online after the connection dropped: offline was left, so enter again.
                case .connection(.online): continuation.yield(.reconnected)
                default: break
                }
            }
            let entered = try await server(session, failure: "cli.room.enterFailed") {
                try await session.enterRoomKeeping(uniqueName: unique)
            }
            let room = entered.room
            let printer = RoomPrinter(me: session.credentials.imUid, present: entered.present)
            out(L.string("cli.room.entered", ["name": TerminalSanitizer.oneLine(room.name), "count": String(room.presentCount),
                                              "names": entered.present.map { TerminalSanitizer.oneLine($0.username) }.joined(separator: "、")]))
            for m in entered.messages { printer.print(m) }
            let me = session.credentials.imUid
            let follower = Task {
                // Being here is ChatSync's `RoomPresence`, as in the full-screen client.
                var presence = RoomPresence(entered)
                await fetch(presence.afterEntering, &presence, session, printer)
                for await event in pushed {
                    switch event {
                    case .push(.message(let m)) where m.conversationId == room.conversationId:
                        let (needs, ended) = presence.pushed(m, me: me)
                        await fetch(needs, &presence, session, printer)
                        try? session.keepRoomMessage(m, of: presence.info)
                        printer.print(m)
                        if let ended {
                            out(L.string(ended == .dropped ? "ui.room.dropped" : "ui.room.removed",
                                         ["name": TerminalSanitizer.oneLine(room.name)]))
                        }
                    case .push(.update(let m)) where m.conversationId == room.conversationId:
                        try? session.keepRoomUpdate(m)
                    case .push(.info(let info)) where info.roomId == room.roomId:
                        presence.info = info
                    case .reconnected:
                        do {
                            let again = try await session.enterRoomKeeping(uniqueName: unique)
                            printer.learn(again.present)
                            // What was said while away first, then the answer's page.
                            await fetch(presence.enteredAgain(again), &presence, session, printer)
                            for m in again.messages { printer.print(m) }
                        } catch {
                            out(L.string("ui.room.reenterFailed", ["name": TerminalSanitizer.oneLine(room.name),
                                                                   "reason": ServerWords.describe(error, L)]))
                        }
                    default: break
                    }
                }
            }
            for await line in standardInputLines() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                _ = try await server(session) { try await session.say(line, inRoom: room.conversationId) }
            }
            try await server(session) { try await session.leaveRoom(room.roomId) }
            session.sync.removeObserver(observer)
            continuation.finish()
            await follower.value
            session.sync.stop()
            out(L.string("cli.room.left", ["name": TerminalSanitizer.oneLine(room.name)]))
        }
    }

    struct Present: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "present", abstract: "Who is in a room (you must be in it).")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false
        @Argument(help: "The room's unique name.") var unique: String

        func run() async throws {
            let session = try await common.session()
            let users = try await server(session) {
                try await session.roomPresent(try await session.lookupRoom(uniqueName: unique).roomId)
            }
            if json { return try jsonOut(users) }
            for u in users { out("\(TerminalSanitizer.oneLine(u.username)) (\(u.account ?? ConversationIDHelper.imUid(u.uid)))") }
        }
    }

    struct Kick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "kick", abstract: "Remove someone from your room.")
        @OptionGroup var common: Common
        @Flag(help: "Keep them out until `room unban`.") var ban = false
        @Argument(help: "The room's unique name.") var unique: String
        @Argument(help: "Their account, display name or uid.") var user: String

        func run() async throws {
            let session = try await common.session()
            try await server(session) {
                let (rid, uid) = try await roomAndUser(session, unique, user)
                try await session.kick(uid, fromRoom: rid, ban: ban)
            }
            out(L.string(ban ? "cli.room.banned" : "cli.room.kicked", ["user": user]))
        }
    }

    struct Unban: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unban", abstract: "Let someone you banned enter your room again.")
        @OptionGroup var common: Common
        @Argument(help: "The room's unique name.") var unique: String
        @Argument(help: "Their account, display name or uid.") var user: String

        func run() async throws {
            let session = try await common.session()
            try await server(session) {
                let (rid, uid) = try await roomAndUser(session, unique, user)
                try await session.unban(uid, inRoom: rid)
            }
            out(L.string("cli.room.unbanned", ["user": user]))
        }
    }

    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "drop", abstract: "Drop your room: everyone in it is told, and it is gone.")
        @OptionGroup var common: Common
        @Argument(help: "The room's unique name.") var unique: String

        func run() async throws {
            let session = try await common.session()
            let info = try await server(session) {
                let info = try await session.lookupRoom(uniqueName: unique)
                try await session.dropRoom(info.roomId)
                return info
            }
            out(L.string("cli.room.dropped", ["name": info.name]))
        }
    }
}

/// Standard input's lines, read on a thread of their own (reading blocks);
/// the stream ends with the input.
private func standardInputLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream<String>.makeStream()
    let reader = Thread {
        while let line = readLine(strippingNewline: true) { continuation.yield(line) }
        continuation.finish()
    }
    reader.start()
    return lines
}

/// What a room's presence needs, fetched into the store and printed: a
/// gap's messages, who is here.
private func fetch(_ needs: [RoomPresence.Need], _ presence: inout RoomPresence, _ session: Session,
                   _ printer: RoomPrinter) async {
    for need in needs {
        switch need {
        case .fill(let after, let before):
            guard let missed = try? await session.fillRoom(presence.info, after: after, before: before) else { continue }
            for m in missed { printer.print(m) }
            await fetch(presence.filled(missed), &presence, session, printer)
        case .present:
            guard let users = try? await session.roomPresent(presence.info.roomId) else { continue }
            presence.present(users)
            printer.learn(users)
        }
    }
}

/// What `room enter` follows: the room's pushes, and the socket coming back.
private enum RoomEvent: Sendable {
    case push(RoomPush)
    case reconnected
}

/// The room of a unique name and the user an owner's command names (account, display name or uid).
private func roomAndUser(_ session: Session, _ unique: String, _ user: String) async throws -> (room: Int, user: Int) {
    (try await session.lookupRoom(uniqueName: unique).roomId, try await session.user(named: user).uid)
}

/// Opens the push socket, as creating and entering a room want.
private func comeOnline(_ session: Session) async throws {
    guard await session.comeOnline() else { throw CLIError(L.string("cli.room.offline")) }
}

/// Prints a room's messages as lines, each once, in seq order.
private final class RoomPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String: String]
    private var last = 0
    private let me: String

    init(me: String, present: [UserBasicInfo]) {
        self.me = me
        names = Dictionary(present.map { (ConversationIDHelper.imUid($0.uid), $0.username) }, uniquingKeysWith: { a, _ in a })
    }

    var lastSeq: Int { lock.withLock { last } }

    func learn(_ present: [UserBasicInfo]) {
        lock.withLock { for u in present { names[ConversationIDHelper.imUid(u.uid)] = u.username } }
    }

    func print(_ m: WireMessage) {
        let line: String? = lock.withLock { () -> String? in
            guard m.seq > last else { return nil }
            last = m.seq
            if let sentence = RoomNotices.sentence(contentType: m.contentType, content: m.content, me: me, L) {
                if let obj = JSONObject(jsonText: m.content), case .object(let dict)? = obj.fields["userNames"] {
                    for (k, v) in dict { if case .string(let s) = v { names[k] = s } }
                }
                return "— \(sentence) —"
            }
            let who = names[m.sendID] ?? m.sendID
            let message = IMMessageMapper.map(m, currentUID: me)
            return "\(TerminalSanitizer.oneLine(who)): \(indentedBody(message.text ?? MessageKinds.summary(of: message, localizer: L)))"
        }
        if let line { out(line) }
    }
}

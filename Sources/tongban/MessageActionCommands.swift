import ArgumentParser
import ChatCore
import ChatStore
import ChatSync
import Foundation

/// The message a command acts on: `--message ID`, or with `--last` (the
/// default) the newest one that `pick` accepts, after a sync.
private func target(_ session: Session, _ conv: String, message: String?,
                    _ pick: (StoredMessage) -> Bool) async throws -> StoredMessage {
    _ = try await syncNow(session)
    if let message {
        guard let m = try session.reader.message(clientMsgID: message), m.conversationId == conv else {
            throw CLIError(L.string("cli.noSuchMessage", ["id": TerminalSanitizer.oneLine(message)]))
        }
        return m
    }
    guard let m = try session.reader.newestPage(conversationId: conv, limit: 200).messages.last(where: pick) else {
        throw CLIError(L.string("cli.noMessageToActOn"))
    }
    return m
}

/// `tongban react --with X [--message ID | --last] EMOJI [--off]` (PROTOCOL.md v3).
struct React: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "react", abstract: "React to a message with one emoji, or take the reaction back.")
    @OptionGroup var common: Common
    @Option(help: "The peer (account, display name or uid) or group (name, unique name or sg_ id).") var with: String
    @Option(help: "clientMsgID of the message.") var message: String?
    @Flag(help: "The newest message in the conversation (the default when --message is not given).") var last = false
    @Flag(help: "Take your reaction back.") var off = false
    @Argument(help: "One emoji, e.g. 👍.") var emoji: String

    func validate() throws {
        guard Reactions.isValidEmoji(emoji) else { throw ValidationError(L.string("cli.badEmoji")) }
    }

    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        let m = try await target(session, conv, message: message) { !$0.revoked && !$0.isControl && $0.seq != nil }
        do { try await session.react(to: m.clientMsgID, in: conv, emoji: emoji, on: !off) } catch let e as APIError {
            throw CLIError(ServerWords.describe(e, L))
        }
        let now = try session.reader.message(clientMsgID: m.clientMsgID)?.reactions ?? Reactions()
        out(now.isEmpty ? L.string("cli.reactions.none")
                        : now.entries.map { "\(TerminalSanitizer.oneLine($0.emoji)) \($0.users.count)" }.joined(separator: "  "))
    }
}

/// `tongban edit --with X [--message ID | --last] TEXT` (PROTOCOL.md v3).
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change the words of one of your sent text messages (within the server's edit window).")
    @OptionGroup var common: Common
    @Option(help: "The peer (account, display name or uid) or group (name, unique name or sg_ id).") var with: String
    @Option(help: "clientMsgID of the message.") var message: String?
    @Flag(help: "Your newest text message in the conversation (the default when --message is not given).") var last = false
    @Argument(help: "The new text.") var text: String

    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        let me = session.credentials.imUid
        let m = try await target(session, conv, message: message) {
            $0.sendID == me && !$0.revoked && $0.seq != nil && $0.kind.editable
        }
        guard m.sendID == me, m.kind.editable else { throw CLIError(L.string("ui.notEditable")) }
        do { try await session.edit(m.clientMsgID, in: conv, to: text) } catch let e as APIError {
            throw CLIError(e.code == .editWindowPassed ? L.string("error.editWindow") : ServerWords.describe(e, L))
        }
        out(L.string("cli.edited"))
    }
}

/// `tongban fav add | ls | rm` (PROTOCOL.md v3 favourites, 收藏).
struct Fav: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fav",
        abstract: "Your favourites: copies of messages kept until their sender revokes them.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Keep a message in your favourites.")
        @OptionGroup var common: Common
        @Option(help: "The peer (account, display name or uid) or group (name, unique name or sg_ id).") var with: String
        @Option(help: "clientMsgID of the message.") var message: String?
        @Flag(help: "The newest message in the conversation (the default when --message is not given).") var last = false

        func run() async throws {
            let session = try await common.session()
            let conv = try await conversationId(session, with: with)
            let m = try await target(session, conv, message: message) {
                !$0.revoked && $0.seq != nil && $0.kind.capabilities.contains(.keepable)
            }
            guard m.kind.capabilities.contains(.keepable) else { throw CLIError(L.string("ui.notKeepable")) }
            let kept = try await server(session) { try await session.addFavorite(m.clientMsgID, in: conv) }
            out(L.string("cli.fav.added", ["id": String(kept.favoriteId)]))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "Your favourites, newest first.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let all = try await server(session) { try await session.favorites() }
            if json { return try jsonOut(all) }
            if all.isEmpty { out(L.string("cli.fav.none")) }
            let me = session.credentials.imUid
            for f in all {
                let m = IMMessageMapper.map(f.message, currentUID: me)
                let said = m.text ?? MessageKinds.summary(of: m, localizer: L)
                out("\(f.favoriteId)  [\(TimeLabel.text(f.createdAt, L))] \(TerminalSanitizer.oneLine(f.conversationName)): "
                    + indentedBody(said))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a favourite (its number in `tongban fav ls`).")
        @OptionGroup var common: Common
        @Argument(help: "The favourite's number.") var id: Int

        func run() async throws {
            let session = try await common.session()
            try await server(session) { try await session.removeFavorite(id) }
            out(L.string("cli.fav.removed"))
        }
    }
}

/// `tongban forward --with X --message ID [--message ID]... --to Y` (PROTOCOL.md v3):
/// each message sent again to Y, in the order they were sent.
struct Forward: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "forward", abstract: "Forward messages to another conversation, one by one.")
    @OptionGroup var common: Common
    @Option(help: "Where the messages are: peer (account, display name or uid) or group.") var with: String
    @Option(name: .customLong("message"), help: "clientMsgID of a message to forward; repeatable, at most 100.")
    var messages: [String]
    @Option(help: "Where they go: peer or group.") var to: String
    @Flag(help: "Send them as one chat history (聊天记录) instead of one by one.") var merged = false
    @Option(help: "The chat history's title (with --merged); by default who it is between.") var title: String?

    func validate() throws {
        guard (1...100).contains(messages.count) else { throw ValidationError(L.string("cli.tooManyMessages")) }
    }

    func run() async throws {
        let session = try await common.session()
        let from = try await conversationId(session, with: with)
        let target = try await conversationId(session, with: to)
        _ = try await syncNow(session)
        var found: [StoredMessage] = []
        for id in messages {
            guard let m = try session.reader.message(clientMsgID: id), m.conversationId == from, !m.revoked, m.seq != nil else {
                throw CLIError(L.string("cli.noSuchMessage", ["id": TerminalSanitizer.oneLine(id)]))
            }
            found.append(m)
        }
        let ordered = found.sorted(by: { ($0.seq ?? 0) < ($1.seq ?? 0) })
        guard ordered.allSatisfy({ $0.kind.capabilities.contains(.forwardable) }) else { throw CLIError(L.string("ui.notForwardable")) }
        if merged {
            let name = try session.reader.conversation(id: from, localizer: L)?.nickname ?? with
            let heading = title ?? MergedPayload.defaultTitle(isGroup: ConversationIDHelper.isGroup(from), chatName: name,
                                                              myName: session.credentials.username, localizer: L)
            let items = ordered.map { MergedPayload.Item(conversationId: $0.conversationId, clientMsgID: $0.clientMsgID) }
            try await session.sendQueue.enqueue(.merged(MergedPayload(title: heading, items: items)), to: target)
            guard await session.sendQueue.drain() == .empty else { throw CLIError(L.string("cli.forward.queued")) }
            return out(L.string("ui.forwardedMerged", ["chats": "1"]))
        }
        for m in ordered {
            guard let sent = m.chatMessage(myImUid: session.credentials.imUid).forwarded else {
                throw CLIError(L.string("ui.notForwardable"))
            }
            try await session.sendQueue.enqueue(sent, to: target)
        }
        let outcome = await session.sendQueue.drain()
        guard outcome == .empty else { throw CLIError(L.string("cli.forward.queued")) }
        out(L.string("ui.forwarded", ["n": String(found.count), "chats": "1"]))
    }
}

/// `tongban search TEXT [--with X] [--json]`: every conversation's messages
/// (or one's), newest first, from the local store's index after a sync.
struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search messages (Chinese without spaces too), newest first.")
    @OptionGroup var common: Common
    @Option(help: "Only this conversation: peer (account, display name or uid) or group.") var with: String?
    @Option(help: "At most this many (1-500).") var limit = 50
    @Flag(help: "Print JSON.") var json = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server.") var offline = false
    @Argument(help: "The words to find.") var text: String

    struct Hit: Encodable {
        var id: String
        var conversationId: String
        var conversationName: String
        var seq: Int?
        var senderId: String
        var sendTime: Int
        var text: String
    }

    func run() async throws {
        let session = try await common.session()
        var conv: String?
        if let with { conv = try await conversationId(session, with: with) }
        if !offline { _ = try await syncNow(session) }
        let names = Dictionary(try session.reader.conversationList(localizer: L, useCache: true).map { ($0.id, $0.nickname) },
                               uniquingKeysWith: { a, _ in a })
        let hits = try session.reader.search(text, conversationId: conv, limit: max(1, min(limit, 500))).map {
            Hit(id: $0.clientMsgID, conversationId: $0.conversationId, conversationName: names[$0.conversationId] ?? $0.conversationId,
                seq: $0.seq, senderId: $0.sendID, sendTime: $0.sendTime, text: $0.searchText)
        }
        if json { return try jsonOut(hits) }
        if hits.isEmpty { out(L.string("ui.search.none")) }
        for h in hits {
            out("[\(TimeLabel.text(h.sendTime, L))] \(TerminalSanitizer.oneLine(h.conversationName)): \(indentedBody(h.text))  (\(h.id))")
        }
    }
}

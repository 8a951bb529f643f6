import ArgumentParser
import ChatCore
import ChatSync
import Foundation

/// `tongban signal ...`: signals (信号), PROTOCOL.md "Signals" and v4
/// "Signal feed": post one, read others', reply, and open the chat a reply
/// to mine starts.
struct SignalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal", abstract: "Post signals, read the feed, reply, and open chats from replies.",
        subcommands: [Post.self, Feed.self, Mine.self, Reply.self, Inbox.self, Open.self, Delete.self, Hide.self, Report.self])

    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "post", abstract: "Post a signal for everyone (1-500 characters).")
        @OptionGroup var common: Common
        @Argument(help: "What you ask or say; read from standard input when omitted.") var text: [String] = []

        func run() async throws {
            let session = try await common.session()
            let content = try textOrStdin(text)
            let id = try await server(session, failure: "cli.signal.postFailed") { try await session.postSignal(content) }
            out(L.string("cli.signal.posted", ["id": String(id)]))
        }
    }

    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "feed", abstract: "Others' signals, newest first.")
        @OptionGroup var common: Common
        @Option(help: "Only signals older than this id (the next page).") var before: Int?
        @Option(help: "How many, 1-50.") var limit = 20
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let items = try await server(session) { try await session.signalFeed(before: before, limit: max(1, min(limit, 50))) }
            if json { return try jsonOut(items) }
            if items.isEmpty { out(L.string("cli.signal.noFeed")) }
            for s in items {
                out(L.string(s.replied ? "cli.signal.feedRowReplied" : "cli.signal.feedRow",
                             ["id": String(s.signalId), "name": TerminalSanitizer.oneLine(s.from.username),
                              "time": TimeLabel.text(s.createdAt, L), "text": TerminalSanitizer.oneLine(s.content)]))
            }
        }
    }

    struct Mine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "mine", abstract: "Your signals with how many replied.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let items = try await server(session) { try await session.mySignals() }
            if json { return try jsonOut(items) }
            if items.isEmpty { out(L.string("cli.signal.noMine")) }
            for s in items {
                out(L.string("cli.signal.mineRow", ["id": String(s.signalId), "n": String(s.replyCount),
                                                    "time": TimeLabel.text(s.createdAt, L),
                                                    "text": TerminalSanitizer.oneLine(s.content)]))
            }
        }
    }

    struct Reply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reply",
            abstract: "Reply to a signal from the feed; its author opens the chat from their inbox.")
        @OptionGroup var common: Common
        @Argument(help: "The signal's id, as `signal feed` lists it.") var signalId: Int
        @Argument(help: "Your reply; read from standard input when omitted.") var text: [String] = []

        func run() async throws {
            let session = try await common.session()
            let content = try textOrStdin(text)
            _ = try await server(session, failure: "cli.signal.replyFailed") { try await session.replySignal(signalId, content: content) }
            out(L.string("cli.signal.replied"))
        }
    }

    struct Inbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "inbox", abstract: "Replies to your signals.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let items = try await server(session) { try await session.signalInbox() }
            if json { return try jsonOut(items) }
            if items.isEmpty { out(L.string("cli.signal.noInbox")) }
            for r in items {
                out(L.string(r.isImOpened ? "cli.signal.inboxRowOpened" : "cli.signal.inboxRow",
                             ["id": r.receiveId, "name": TerminalSanitizer.oneLine(r.from.username),
                              "reply": TerminalSanitizer.oneLine(r.replyContent),
                              "signal": TerminalSanitizer.oneLine(r.signalContent)]))
            }
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open the chat with someone who replied to your signal: its first message quotes the signal.")
        @OptionGroup var common: Common
        @Argument(help: "The reply's id, as `signal inbox` lists it.") var receiveId: String

        func run() async throws {
            let session = try await common.session()
            let items = try await server(session) { try await session.signalInbox() }
            guard let item = items.first(where: { $0.receiveId == receiveId }) else {
                throw CLIError(L.string("cli.signal.noReply", ["id": receiveId]))
            }
            let conv = try await server(session) { try await session.openSignalChat(item) }
            if !item.isImOpened {
                // The same id from every device: the quote goes out once.
                let id = SignalQuoteID.clientMsgID(receiveId: item.receiveId)
                if try session.reader.message(clientMsgID: id) == nil {
                    let quote = SignalQuotePayload(signalId: item.signalId, replyContent: item.replyContent,
                                                   signalContent: item.signalContent)
                    _ = try await session.sendQueue.enqueue(.signalQuote(quote), to: conv, receiveId: item.receiveId, clientMsgID: id)
                    _ = await session.sendQueue.drain()
                }
                try await server(session) { try await session.openIM(conv, receiveId: item.receiveId) }
            }
            out(L.string("cli.signal.opened", ["name": TerminalSanitizer.oneLine(item.from.username)]))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete one of your signals (replies stay in your inbox).")
        @OptionGroup var common: Common
        @Argument(help: "The signal's id, as `signal mine` lists it.") var signalId: Int

        func run() async throws {
            let session = try await common.session()
            try await server(session) { try await session.deleteSignal(signalId) }
            out(L.string("cli.signal.deleted"))
        }
    }

    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "hide", abstract: "Never show a signal in your feed again.")
        @OptionGroup var common: Common
        @Argument(help: "The signal's id.") var signalId: Int

        func run() async throws {
            let session = try await common.session()
            try await server(session) { try await session.hideSignal(signalId) }
            out(L.string("cli.signal.hidden"))
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "report", abstract: "Report a signal to the server's operator.")
        @OptionGroup var common: Common
        @Argument(help: "The signal's id.") var signalId: Int
        @Argument(help: "Why (at most 500 characters).") var reason: [String] = []

        func run() async throws {
            let session = try await common.session()
            try await server(session) { try await session.reportSignal(signalId, reason: reason.joined(separator: " ")) }
            out(L.string("cli.signal.reported"))
        }
    }
}

/// The words given, else standard input's, trimmed; empty is refused.
func textOrStdin(_ words: [String]) throws -> String {
    let text = words.isEmpty ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : words.joined(separator: " ")
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw CLIError(L.string("cli.signal.empty")) }
    return trimmed
}

import ArgumentParser
import ChatCore
import ChatStore
import ChatSync
import Foundation

/// `tongban outbox --json`: one unacknowledged message.
struct OutboxLine: Encodable {
    var id: String
    var conversationId: String
    var conversation: String
    /// queued, held (behind a failed one) or failed.
    var state: String
    var summary: String
    var attempts: Int
    var lastError: String?
}

struct Outbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Messages not yet acknowledged by the server: queued, held behind a failed one, or failed.",
        discussion: """
            A queued message is sent, in order, by the next tongban command that reaches the server (or by the \
            full-screen client). A message the server refused holds what its conversation queued after it, \
            until you retry it or discard it.
            """,
        subcommands: [OutboxList.self, OutboxRetry.self, OutboxDiscard.self],
        defaultSubcommand: OutboxList.self)
}

struct OutboxList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the outbox, oldest first.")
    @OptionGroup var common: Common
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let session = try await common.session()
        var lines: [OutboxLine] = []
        for entry in try session.reader.outboxEntries() {
            let row = entry.row, state = entry.state.rawValue
            let name = try session.reader.conversation(id: row.conversationId, localizer: L)?.nickname ?? row.conversationId
            let summary = try session.reader.message(clientMsgID: row.clientMsgID).map {
                let m = $0.chatMessage(myImUid: session.credentials.imUid)
                return m.text ?? MessageKinds.summary(of: m, localizer: L)
            } ?? row.pushDesc
            lines.append(OutboxLine(id: row.clientMsgID, conversationId: row.conversationId, conversation: name, state: state,
                                    summary: summary, attempts: row.attempts, lastError: row.lastError))
        }
        if json {
            try jsonOut(lines)
            return
        }
        if lines.isEmpty { out(L.string("cli.outbox.empty")) }
        for l in lines {
            let why = l.lastError.map { "  (\(MessageStatus.words(forReason: $0, L)))" } ?? ""
            out("\(L.string("cli.outbox." + l.state))  \(TerminalSanitizer.oneLine(l.conversation))  "
                + "\(TerminalSanitizer.oneLine(l.summary))  \(l.id)\(why)")
        }
    }
}

/// The one outbox row `prefix` names (a clientMsgID or its start).
func outboxRow(_ session: Session, _ prefix: String) throws -> OutboxItem {
    let matches = try session.reader.outboxEntries().map(\.row).filter { $0.clientMsgID.hasPrefix(prefix) }
    guard matches.count == 1, let row = matches.first else {
        throw CLIError(L.string(matches.isEmpty ? "cli.outbox.noSuch" : "cli.outbox.ambiguous", ["id": prefix]))
    }
    return row
}

struct OutboxRetry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry",
                                                    abstract: "Queue a failed message again (same clientMsgID) and send the queue.")
    @OptionGroup var common: Common
    @Argument(help: "The message's clientMsgID (or its first characters), as `tongban outbox` lists it.") var id: String

    func run() async throws {
        let session = try await common.session()
        let row = try outboxRow(session, id)
        guard row.failed else { throw CLIError(L.string("cli.outbox.notFailed", ["id": row.clientMsgID])) }
        try await session.sendQueue.retry(clientMsgID: row.clientMsgID)
        _ = await session.sendQueue.drain()
        switch try await session.sendQueue.fate(of: row.clientMsgID) {
        case .sent(let seq): out(L.string("cli.sent", ["seq": String(seq)]))
        case .failed(let reason): throw CLIError(failedText(reason))
        case .held: out(L.string("cli.held"))
        case .queued(let reason): out(L.string("cli.queued", ["reason": MessageStatus.words(forReason: reason, L)]))
        case .gone: throw CLIError(L.string("cli.outbox.noSuch", ["id": id]))
        }
    }
}

struct OutboxDiscard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "discard",
                                                    abstract: "Delete a failed message (never delivered); what it held is sent.")
    @OptionGroup var common: Common
    @Argument(help: "The message's clientMsgID (or its first characters), as `tongban outbox` lists it.") var id: String
    @Flag(help: "Also a queued message that was never refused (e.g. one the server keeps answering with an error): it may have been delivered already.")
    var force = false

    func run() async throws {
        let session = try await common.session()
        let row = try outboxRow(session, id)
        if force && !row.failed {
            guard try await session.sendQueue.discard(clientMsgID: row.clientMsgID, force: true) else {
                throw CLIError(L.string("cli.outbox.noSuch", ["id": id]))
            }
            out(L.string(row.mayHaveArrived ? "cli.outbox.forcedMaybe" : "cli.outbox.discarded"))
        } else {
            guard try await session.sendQueue.discard(clientMsgID: row.clientMsgID) else {
                throw CLIError(L.string("cli.outbox.notFailed", ["id": row.clientMsgID]))
            }
            out(L.string("cli.outbox.discarded"))
        }
        _ = await session.sendQueue.drain()
        let left = try session.reader.outboxState()
        if left.queued > 0, let why = left.lastError {
            out(L.string("cli.queued", ["reason": MessageStatus.words(forReason: why, L)]))
        }
    }
}

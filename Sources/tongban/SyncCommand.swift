import ArgumentParser
import ChatCore
import ChatSync
import Foundation

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Send the queued messages and pull what is new.")
    @OptionGroup var common: Common
    func run() async throws {
        let session = try await common.session()
        let drained = await session.sendQueue.drain()
        let outbox = try session.reader.outboxState()
        if outbox.failed > 0 {
            errOut(L.string("cli.outbox.attention", ["failed": String(outbox.failed), "held": String(outbox.held)]))
        }
        if let why = drained.reason { throw CLIError(L.string("cli.unreachable", ["server": session.credentials.server, "reason": why])) }
        guard let changes = try await online(session, { try await session.sync.pull() }) else { throw ExitCode(2) }
        for (conv, count) in changes.incoming.sorted(by: { $0.key < $1.key }) {
            let name = try session.reader.conversation(id: conv, localizer: L)?.nickname ?? conv
            for r in try session.reader.newestPage(conversationId: conv, limit: count).messages {
                let m = r.chatMessage(myImUid: session.credentials.imUid)
                out("\(TerminalSanitizer.oneLine(name)): \(indentedBody(m.text ?? MessageKinds.summary(of: m, localizer: L)))")
            }
        }
        out(L.string("cli.synced", ["count": String(changes.conversationIds.count), "cursor": String(try session.reader.syncCursor())]))
    }
}

import ArgumentParser
import ChatCore
import ChatSync
import Foundation

struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke one of your messages (within the server's window).")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid.") var with: String
    @Option(help: "clientMsgID of the message.") var message: String?
    @Flag(help: "Your newest message in the conversation (the default when --message is not given).") var last = false
    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        _ = try await syncNow(session)
        let target = try message ?? session.reader.newestPage(conversationId: conv, limit: 200).messages
            .last { $0.sendID == session.credentials.imUid && !$0.revoked && $0.seq != nil && $0.kind.capabilities.contains(.revocable) }?
            .clientMsgID
        guard let target else { throw CLIError(L.string("cli.noOwnMessage")) }
        do { try await session.sendQueue.revoke(clientMsgID: target) } catch let e as APIError { throw CLIError(ServerWords.describe(e, L)) }
        out(L.string("cli.revoked"))
    }
}

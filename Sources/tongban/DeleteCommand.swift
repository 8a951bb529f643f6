import ArgumentParser
import ChatCore
import ChatSync
import Foundation

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a conversation (hidden and cleared until a new message), or with --message some of its messages, for you only.")
    @OptionGroup var common: Common
    @Option(help: "The peer (account, display name or uid) or group (name, unique name or sg_ id).") var with: String
    @Option(name: .customLong("message"), help: "clientMsgID of a message to delete for you only (others keep it); repeatable, at most 100.")
    var messages: [String] = []

    func validate() throws {
        guard messages.count <= 100 else { throw ValidationError(L.string("cli.tooManyMessages")) }
    }

    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        guard !messages.isEmpty else {
            do { try await session.deleteConversation(conv) } catch let e as APIError { throw CLIError(ServerWords.describe(e, L)) }
            out(L.string("cli.deleted"))
            return
        }
        do { try await session.deleteForMe(messages, in: conv) } catch let e as APIError { throw CLIError(ServerWords.describe(e, L)) }
        out(L.string("cli.deletedForMe", ["n": String(Set(messages).count)]))
    }
}

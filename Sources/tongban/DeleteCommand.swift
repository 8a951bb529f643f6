import ArgumentParser
import ChatCore
import ChatSync
import Foundation

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a conversation (hidden and cleared until a new message).")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid.") var with: String
    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        do { try await session.deleteConversation(conv) } catch let e as APIError { throw CLIError(e.description) }
        out(L.string("cli.deleted"))
    }
}

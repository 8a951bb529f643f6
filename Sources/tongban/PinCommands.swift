import ArgumentParser
import ChatCore
import ChatSync
import Foundation

struct Pin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pin", abstract: "Pin a conversation.")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid.") var with: String
    func run() async throws { try await setPinned(common, with, true) }
}

struct Unpin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unpin", abstract: "Unpin a conversation.")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid.") var with: String
    func run() async throws { try await setPinned(common, with, false) }
}

func setPinned(_ common: Common, _ with: String, _ pinned: Bool) async throws {
    let session = try await common.session()
    let conv = try await conversationId(session, with: with)
    do {
        try await session.pin(conv, pinned)
    } catch let e as APIError { throw CLIError(ServerWords.describe(e, L)) }
    out(L.string(pinned ? "cli.pinned" : "cli.unpinned"))
}

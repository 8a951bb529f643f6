import ArgumentParser
import ChatCore
import ChatSync
import Foundation

/// `tongban save --with PEER --last`: the newest file of a chat, into the
/// downloads folder under a safe name that overwrites nothing.
struct Save: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save the newest file of a conversation (into $XDG_DOWNLOAD_DIR, else ~/Downloads).")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid.") var with: String
    @Flag(help: "Save the newest file.") var last = false
    @Option(help: "Save into this folder instead.") var dir: String?

    func run() async throws {
        guard last else { throw CLIError("say which file: --last saves the newest") }
        let session = try await common.session()
        _ = try await syncNow(session)
        let conv = try await conversationId(session, with: with)
        let newest = try session.reader.newestPage(conversationId: conv, limit: 200).messages
            .map { $0.chatMessage(myImUid: session.credentials.imUid) }
            .compactMap(MessageKinds.attachment(in:)).last
        guard let file = newest else { throw CLIError(L.string("cli.noFile")) }
        let data: Data
        if let cached = session.media.localURL(for: file.object.key) {
            data = try Data(contentsOf: cached)
        } else {
            guard let fetched = try await online(session, { try await session.media.fetchUncached(objectKey: file.object.key) }) else {
                throw CLIError(L.string("cli.noFile"))
            }
            data = fetched
        }
        let folder = dir.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath, isDirectory: true) } ?? Downloads.directory()
        let saved = try Downloads.save(data, name: file.name, in: folder)
        out(L.string("ui.fileSaved", ["path": saved.path]))
    }
}

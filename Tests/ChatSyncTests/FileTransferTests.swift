import ChatCore
import ChatServer
@testable import ChatStore
import ChatViewModels
import Foundation
import Testing
@testable import ChatSync

@Suite(.serialized) struct FileTransferTests {
    /// A file goes from one user to the other whole, under its name; saved
    /// twice it never overwrites; a hostile name stays in the folder.
    @Test func aFileArrivesWholeAndIsSavedSafely() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "uma")
        let b = try await makeSession(server.baseURL, "viktor")
        let conv = try await a.conversation(with: "viktor")
        let source = tempURL("src").appendingPathComponent("会议纪要 final.txt")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: source)
        let file = try OutgoingKind.file.outgoing([source.path], writeUpload: a.media.pendingUploadFile)
        try await a.sendQueue.enqueue(file.content, to: conv, uploads: file.uploads)
        #expect(await a.sendQueue.drain() == .empty)

        _ = try await b.sync.pull()
        let m = try #require(try b.store.newestPage(conversationId: conv).messages.last?.chatMessage(myImUid: b.credentials.imUid))
        guard let p = m.content.file else { Issue.record("not a file: \(m.content)"); return }
        #expect(p.name == "会议纪要 final.txt" && p.size == bytes.count)
        #expect(try b.store.conversationList(localizer: Localizer(language: .zhHans)).first { $0.id == conv }?.lastMessagePreview == "[文件] 会议纪要 final.txt")

        let downloads = tempURL("dl")
        let data = try await b.media.fetchUncached(objectKey: p.objectKey)
        #expect(data == bytes)
        let first = try Downloads.save(data, name: p.name, in: downloads)
        let second = try Downloads.save(data, name: p.name, in: downloads)
        #expect(first.lastPathComponent == "会议纪要 final.txt")
        #expect(second.lastPathComponent == "会议纪要 final (1).txt")
        #expect(try Data(contentsOf: second) == bytes)
        let hostile = try Downloads.save(Data("x".utf8), name: "../../.bashrc", in: downloads)
        #expect(hostile.deletingLastPathComponent().standardizedFileURL.path == downloads.standardizedFileURL.path)
        #expect(hostile.lastPathComponent == "bashrc")
    }

    @Test func theDownloadsFolder() {
        #expect(Downloads.directory(environment: ["XDG_DOWNLOAD_DIR": "/srv/dl", "HOME": "/home/u"]).path == "/srv/dl")
        #expect(Downloads.directory(environment: ["HOME": "/home/u"]).path == "/home/u/Downloads")
        #expect(Downloads.directory(environment: ["XDG_DOWNLOAD_DIR": "relative", "HOME": "/home/u"]).path == "/home/u/Downloads")
    }
}

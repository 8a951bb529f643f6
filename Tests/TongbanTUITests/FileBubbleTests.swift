import ChatCore
import ChatServer
import ChatStore
import ChatSync
import Foundation
import Testing
@testable import TongbanTUI

@Suite(.serialized) struct FileBubbleTests {
    /// `/file PATH` sends a file (a name with spaces too); its bubble reads
    /// `📎 name  size`; Enter on it saves it into the downloads folder and
    /// says where, and a second Enter never overwrites the first copy.
    @MainActor @Test func sendShowAndSaveAFile() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let dir = tmpDir("file")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("会议 notes.txt")
        try Data("hello, 同伴!".utf8).write(to: file)
        let app = await app(session)
        app.downloadsDirectory = dir.appendingPathComponent("downloads")
        await app.handle(.enter)  // Alice
        #expect(await waitFor(app, "好的，发消息给我试试"))
        await app.appearing?.value
        await type(app, "/file \(file.path)")
        await app.handle(.enter)
        #expect(await waitFor(app, "📎 会议 notes.txt  14 B"))
        // Send it (the tests run the queue by hand), then wait until the
        // bubble carries the server's key instead of the upload placeholder.
        #expect(await session.sendQueue.drain() == .empty)
        func sentFile() -> Bool {
            app.bubbles.contains { $0.content.file.map { !$0.objectKey.hasPrefix("@upload") } ?? false }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !sentFile() && ContinuousClock.now < deadline {
            _ = app.frame(width: 120, height: 40)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(sentFile(), "the file was uploaded and sent")

        await app.handle(.escape)  // from the input to the messages
        for _ in 0..<10 where !(app.selectedMessage.map { $0.type == .file } ?? false) { await app.handle(.char("k")) }
        #expect(app.selectedMessage?.type == .file)
        await app.handle(.enter)
        let saved = app.downloadsDirectory.appendingPathComponent("会议 notes.txt")
        #expect(try Data(contentsOf: saved) == Data("hello, 同伴!".utf8))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("已保存到"))
        await app.handle(.enter)
        #expect(FileManager.default.fileExists(atPath: app.downloadsDirectory.appendingPathComponent("会议 notes (1).txt").path))
    }
}

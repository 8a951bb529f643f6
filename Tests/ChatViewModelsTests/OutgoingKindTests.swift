import ChatCore
import ChatStore
@testable import ChatSync
@testable import ChatViewModels
import ChatTesting
import Foundation
import Testing

/// Files as the outbox keeps them, through the kinds' send table: each file
/// named in the payload by the placeholder its upload replaces, pictures
/// prepared into files of their own. Nothing is sent.
@Suite struct OutgoingKindTests {
    let conv = ConversationIDHelper.make(myUid: 1, targetUid: 2)
    let dir = TestFolders.make("outgoing")

    func file(_ name: String, _ data: Data) throws -> String {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    func picture(_ name: String) throws -> String {
        try file(name, SampleMedia.png(width: 64, height: 48) { x, y in (UInt8(x * 4), UInt8(y * 5), 9) })
    }

    /// Writes prepared uploads next to the originals, as the media cache would elsewhere.
    func write(_ data: Data, _ ext: String) throws -> URL {
        let url = dir.appendingPathComponent("prepared-\(UUID().uuidString).\(ext)")
        try data.write(to: url)
        return url
    }

    @Test func aPictureAndAFlashImage() throws {
        let o = try OutgoingKind.image.outgoing([try picture("a.png")], writeUpload: write)
        #expect(o.content == .image(ImagePayload(objectKey: "@upload0", w: 64, h: 48)))
        #expect(o.uploads.count == 1 && o.uploads[0].kind == "chat_image" && o.uploads[0].placeholder == "@upload0")
        #expect(o.uploads[0].path != dir.appendingPathComponent("a.png").path, "the prepared copy goes, not the user's file")
        let flash = try OutgoingKind.flash.outgoing([try picture("b.png")], writeUpload: write)
        #expect(flash.content == .flashImage(FlashImagePayload(objectKey: "@upload0")))
    }

    @Test func severalPicturesInOrderAtMostNine() throws {
        let paths = try (0..<3).map { try picture("\($0).png") }
        let o = try OutgoingKind.multi.outgoing(paths, writeUpload: write)
        #expect(o.content == .multiImage(MultiImagePayload(multiObjectKeys: ["@upload0", "@upload1", "@upload2"])))
        let ten = Array(repeating: paths[0], count: 10)
        #expect(throws: OutgoingFailure.tooMany(command: "/multi", max: 9)) { try OutgoingKind.multi.outgoing(ten, writeUpload: write) }
        #expect(throws: OutgoingFailure.missingPath(usage: "/multi PATH…")) { try OutgoingKind.multi.outgoing([], writeUpload: write) }
    }

    @Test func aVoiceMessageKnowsItsLength() throws {
        let path = try file("a.wav", SampleMedia.wav(seconds: 3))
        let o = try OutgoingKind.voice.outgoing([path], writeUpload: write)
        #expect(o.content == .audio(AudioPayload(objectKey: "@upload0", durationSec: 3)))
        #expect(o.uploads == [.init(path: path, contentType: "audio/wav", kind: "chat_audio", placeholder: "@upload0")])
        let text = try file("not-audio.wav", Data("hello".utf8))
        #expect(throws: (any Error).self) { try OutgoingKind.voice.outgoing([text], writeUpload: write) }
    }

    @Test func aFileGoesUnderItsSafeBaseName() throws {
        let path = try file("会议 纪要.txt", Data("minutes".utf8))
        let o = try OutgoingKind.file.outgoing([path], writeUpload: write)
        let p = try #require(o.content.file)
        #expect(p.name == "会议 纪要.txt" && p.size == 7)
        #expect(o.uploads.map(\.placeholder) == [p.objectKey] && o.uploads[0].kind == "chat_file")
        #expect(throws: OutgoingFailure.unreadable(dir.path)) { try OutgoingKind.file.outgoing([dir.path], writeUpload: write) }
    }

    @Test func theInputLineNamesTheKindAndItsPaths() {
        #expect(OutgoingKinds.command(in: "/image a.png")?.name == "image")
        #expect(OutgoingKinds.command(in: "/rename x") == nil, "not a kind that sends files")
        #expect(OutgoingKinds.command(in: "hello /image") == nil)
        let file = OutgoingKinds.named("file")!
        #expect(OutgoingKinds.paths(for: file, in: "/file  my notes.txt") == ["my notes.txt"], "the rest of the line is one path")
        let multi = OutgoingKinds.named("multi")!
        #expect(OutgoingKinds.paths(for: multi, in: "/multi a.png  b.png") == ["a.png", "b.png"])
    }

    @Test func theQueueKeepsThePlaceholdersUploadsReplace() async throws {
        let store = try ChatStore(path: dir.appendingPathComponent("store/chat.sqlite").path, myUid: 1)
        let queue = SendQueue(api: APIClient(baseURL: "http://127.0.0.1:9"), store: store)
        let o = try OutgoingKind.image.outgoing([try picture("q.png")], writeUpload: write)
        let record = try await queue.enqueue(o.content, to: conv, uploads: o.uploads)
        let row = try #require(try store.outbox().first { $0.clientMsgID == record.clientMsgID })
        let kept = try JSONDecoder().decode([SendQueue.PendingUpload].self, from: Data((row.pendingUploads ?? "").utf8))
        #expect(kept == o.uploads)
        #expect(record.chatMessage(myImUid: "tb_1").content == o.content)
    }
}

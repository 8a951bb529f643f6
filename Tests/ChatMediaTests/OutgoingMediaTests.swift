import ChatCore
import ChatTesting
import Foundation
import Testing
@testable import ChatMedia

/// This process's folder for the files these tests write (removed at exit).
let outgoingFolder = TestFolders.folder("tongban-outgoing")

/// What `tongban send` and the full-screen client accept and prepare for
/// the outbox.
@Suite struct OutgoingMediaTests {
    func temp(_ name: String, _ data: Data) throws -> String {
        let url = outgoingFolder.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try data.write(to: url)
        return url.path
    }

    /// The prepared bytes go through the caller's writer, named by their
    /// type; the message carries the picture's size.
    @Test func aPictureIsPreparedIntoTheCallersFile() throws {
        let source = try temp("quarters.png", quarters)
        var written: [(Data, String)] = []
        let target = outgoingFolder.appendingPathComponent("\(UUID().uuidString).png")
        let image = try OutgoingMedia.image(at: source) { data, ext in
            written.append((data, ext))
            try data.write(to: target)
            return target
        }
        #expect(image == OutgoingMedia.Image(path: target.path, contentType: "image/png", width: 4, height: 4))
        #expect(written.count == 1 && written[0].1 == "png")
        #expect(written.first?.0 == quarters, "a small picture without metadata goes as it is")
    }

    /// The full-screen client writes through its chat view model, on the main actor.
    @MainActor @Test func aWriterOnTheMainActor() throws {
        let writer = MainActorWriter()
        let image = try OutgoingMedia.image(at: try temp("q.png", quarters)) { try writer.write($0, ext: $1) }
        #expect(image.path.hasSuffix(".png") && FileManager.default.contents(atPath: image.path) == quarters)
    }

    @Test func aVoiceFileIsCheckedByItsBytes() throws {
        let wav = try temp("voice.wav", SampleMedia.wav(seconds: 3))
        #expect(try OutgoingMedia.voice(at: wav) == OutgoingMedia.Voice(path: wav, contentType: "audio/wav", durationSec: 3))
        let picture = try temp("voice.mp3", quarters)
        #expect(throws: MediaProbe.Failure.unsupported(picture)) { try OutgoingMedia.voice(at: picture) }
        #expect(throws: MediaProbe.Failure.self) { try OutgoingMedia.image(at: wav) { _, _ in URL(fileURLWithPath: "/") } }
    }
}

@MainActor final class MainActorWriter {
    func write(_ data: Data, ext: String) throws -> URL {
        let url = outgoingFolder.appendingPathComponent("\(UUID().uuidString).\(ext)")
        try data.write(to: url)
        return url
    }
}

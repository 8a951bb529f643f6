import ChatCore
import Foundation
import TerminalUI
import Testing
@testable import ChatMedia

/// A 4×4 picture: red, green, blue, white quarters.
let quarters = SampleMedia.png(width: 4, height: 4) { x, y in
    switch (x < 2, y < 2) {
    case (true, true): (255, 0, 0)
    case (false, true): (0, 255, 0)
    case (true, false): (0, 0, 255)
    case (false, false): (255, 255, 255)
    }
}

@Suite struct ImageCodecTests {
    @Test(arguments: [".png", ".jpg", ".webp", ".gif"])
    func decodesEveryFormat(_ suffix: String) throws {
        let big = SampleMedia.png(width: 64, height: 32) { x, _ in (UInt8(x * 4), 100, 50) }
        let encoded = try ImageCodec.convert(big, to: suffix)
        let probe = try #require(MediaProbe.probe(encoded), "\(suffix) is recognised from its bytes")
        #expect(probe.kind == "chat_image")
        #expect(probe.width == 64 && probe.height == 32, "\(suffix) header size")
        let image = try ImageCodec.decode(encoded)
        #expect(image.width == 64 && image.height == 32)
        let thumb = try ImageCodec.decode(encoded, maxWidth: 16, maxHeight: 16)
        #expect(thumb.width == 16 && thumb.height == 8, "shrunk to fit, aspect kept")
    }

    @Test func exactPixelsAndHalfBlocks() throws {
        let image = try ImageCodec.decode(quarters)
        #expect(image.pixel(0, 0) == (255, 0, 0))
        #expect(image.pixel(3, 3) == (255, 255, 255))
        var grid = Grid(width: 4, height: 2)
        HalfBlock.draw(pixels: image.pixels, width: image.width, height: image.height, into: &grid, x: 0, y: 0)
        // Row 0 of cells = pixel rows 0 and 1: red over red, green over green.
        #expect(grid[0, 0] == Cell(text: "▀", style: Style(fg: .index(196), bg: .index(196))))
        #expect(grid[3, 0] == Cell(text: "▀", style: Style(fg: .index(46), bg: .index(46))))
        #expect(grid[0, 1] == Cell(text: "▀", style: Style(fg: .index(21), bg: .index(21))))
        #expect(grid[3, 1] == Cell(text: "▀", style: Style(fg: .index(231), bg: .index(231))))
    }

    @Test func compressionKeepsAspectAndEndsUnderTheLimit() throws {
        var rng = SystemRandomNumberGenerator()
        let noisy = SampleMedia.png(width: 1200, height: 800) { _, _ in
            (UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng))
        }
        #expect(noisy.count > 2_000_000)
        let prepared = try ImageCodec.prepareForUpload(noisy)
        #expect(prepared.data.count <= 200 * 1024)
        #expect(prepared.contentType == "image/jpeg")
        #expect(abs(Double(prepared.width) / Double(prepared.height) - 1.5) < 0.02)
        let small = try ImageCodec.prepareForUpload(quarters)
        #expect(small.data == quarters, "small files go as they are")
        #expect(small.width == 4)
    }

    @Test func corruptInputIsAnErrorNotACrash() {
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(Data("hello".utf8)) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.prepareForUpload(Data("GIF89a-broken".utf8)) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(Data()) }
    }

    @Test(arguments: [1.0, 3.0, 12.0, 59.0])
    func wavDurationIsExact(_ seconds: Double) throws {
        let probe = try #require(MediaProbe.probe(SampleMedia.wav(seconds: seconds)))
        #expect(probe.kind == "chat_audio")
        #expect(probe.durationSec == Int(seconds))
    }

    @Test func missingAndNonMediaFilesAreRefused() throws {
        #expect(throws: MediaProbe.Failure.self) { try MediaProbe.probe(path: "/nonexistent/x.png") }
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-not-media-\(UUID()).txt")
        try Data("just text".utf8).write(to: text)
        #expect(throws: MediaProbe.Failure.unsupported(text.path)) { try MediaProbe.probe(path: text.path) }
    }
}

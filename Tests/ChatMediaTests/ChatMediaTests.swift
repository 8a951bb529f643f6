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

    @Test func trueColourHalfBlocksKeepExactColours() throws {
        let image = try ImageCodec.decode(quarters)
        var grid = Grid(width: 4, height: 2)
        HalfBlock.draw(pixels: image.pixels, width: image.width, height: image.height, into: &grid, x: 0, y: 0, trueColor: true)
        #expect(grid[0, 0] == Cell(text: "▀", style: Style(fg: .rgb(255, 0, 0), bg: .rgb(255, 0, 0))))
        #expect(grid[3, 0] == Cell(text: "▀", style: Style(fg: .rgb(0, 255, 0), bg: .rgb(0, 255, 0))))
        #expect(grid[0, 1] == Cell(text: "▀", style: Style(fg: .rgb(0, 0, 255), bg: .rgb(0, 0, 255))))
        #expect(grid[3, 1] == Cell(text: "▀", style: Style(fg: .rgb(255, 255, 255), bg: .rgb(255, 255, 255))))
        // What ncurses draws underneath: the same palette colours as before.
        #expect(TermColor.rgb(255, 0, 0).paletteIndex == 196)
        #expect(TermColor.rgb(255, 255, 255).paletteIndex == 231)
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

    @Test func aSmallPhotoLosesItsEXIFButNothingElse() throws {
        let photo = try ImageCodec.jpeg(SampleMedia.png(width: 64, height: 48) { x, _ in (UInt8(x * 4), 90, 200) }, quality: 90).data
        #expect(!ImageCodec.hasEXIF(photo))
        // The camera's APP1 segment with a GPS position, right after SOI.
        let payload = Array("Exif\0\0".utf8) + Array("MM\0*GPSLatitude 39.9042 N, GPSLongitude 116.4074 E".utf8)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let tagged = Data(photo.prefix(2)) + Data(app1) + Data(photo.dropFirst(2))
        #expect(ImageCodec.hasEXIF(tagged))
        let sent = try ImageCodec.prepareForUpload(tagged)
        #expect(sent.contentType == "image/jpeg" && sent.width == 64 && sent.height == 48)
        #expect(!ImageCodec.hasEXIF(sent.data))
        #expect(sent.data.range(of: Data("GPSLatitude".utf8)) == nil, "the position does not leave the machine")
        // Without EXIF a small JPEG still goes byte for byte.
        #expect(try ImageCodec.prepareForUpload(photo).data == photo)
    }

    @Test func corruptInputIsAnErrorNotACrash() {
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(Data("hello".utf8)) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.prepareForUpload(Data("GIF89a-broken".utf8)) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(Data()) }
    }

    @Test func onlyTheFourPictureFormatsAreParsed() throws {
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="red"/></svg>"#.utf8)
        let tiff = try ImageCodec.convert(quarters, to: ".tif")
        for data in [svg, tiff] {
            #expect(throws: ImageCodec.Failure.self) { try ImageCodec.decode(data) }
            // Even past the magic-number check, libvips' SVG and TIFF loaders are blocked.
            #expect(throws: ImageCodec.Failure.self) { try ImageCodec.vipsDecode(data, maxWidth: 16, maxHeight: 16) }
        }
        #expect(try ImageCodec.vipsDecode(quarters, maxWidth: 16, maxHeight: 16).width == 4)
    }

    @Test func truncatedHeadersAreReadWithoutACrash() {
        #expect(MediaProbe.probe(Data("RIFF\0\0\0\0WEBPVP8X".utf8))?.contentType == "image/webp")
        #expect(MediaProbe.probe(Data("RIFF\0\0\0\0WEBPVP8 ".utf8))?.width == nil)
        #expect(MediaProbe.probe(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))?.width == 0)
    }

    @Test(arguments: [1.0, 3.0, 12.0, 59.0])
    func wavDurationIsExact(_ seconds: Double) throws {
        let probe = try #require(MediaProbe.probe(SampleMedia.wav(seconds: seconds)))
        #expect(probe.kind == "chat_audio")
        #expect(probe.durationSec == Int(seconds))
    }

    @Test func mp3M4aAndOggDurations() throws {
        // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: 417-byte frames of 1152 samples.
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x00] + Array(repeating: 0, count: 413)
        let mp3 = Data(Array(Array(repeating: frame, count: 383).joined()))   // 383 × 1152 / 44100 ≈ 10.0 s
        #expect(MediaProbe.probe(mp3)?.durationSec == 10)
        // MP4: ftyp + moov/mvhd with timescale 1000 and duration 7,400 ms.
        var m4a: [UInt8] = [0, 0, 0, 16] + Array("ftypM4A ".utf8) + [0, 0, 0, 0]
        let mvhd: [UInt8] = Array("mvhd".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0x03, 0xE8] + [0, 0, 0x1C, 0xE8]
        m4a += [0, 0, 0, UInt8(8 + 4 + mvhd.count)] + Array("moov".utf8) + [0, 0, 0, UInt8(4 + mvhd.count)] + mvhd
        #expect(MediaProbe.probe(Data(m4a))?.durationSec == 7)
        #expect(MediaProbe.probe(Data(m4a))?.contentType == "audio/mp4")
        // Ogg Vorbis: identification header at 16 kHz, last page granule 48,000 -> 3 s.
        func page(granule: Int, body: [UInt8]) -> [UInt8] {
            Array("OggS".utf8) + [0, 0] + (0..<8).map { UInt8((granule >> ($0 * 8)) & 0xFF) } + Array(repeating: 0, count: 12) + body
        }
        let ident: [UInt8] = [0x01] + Array("vorbis".utf8) + [0, 0, 0, 0, 1] + [0x80, 0x3E, 0, 0]
        let ogg = Data(page(granule: 0, body: ident) + page(granule: 48_000, body: [1, 2, 3]))
        #expect(MediaProbe.probe(ogg)?.durationSec == 3)
    }

    @Test func missingAndNonMediaFilesAreRefused() throws {
        #expect(throws: MediaProbe.Failure.self) { try MediaProbe.probe(path: "/nonexistent/x.png") }
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-not-media-\(UUID()).txt")
        try Data("just text".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        #expect(throws: MediaProbe.Failure.unsupported(text.path)) { try MediaProbe.probe(path: text.path) }
    }
}

/// The client decodes pictures from the network in a helper process.
@Suite struct PictureDecoderTests {
    /// The `tongban` built next to this test binary (`swift build --build-tests` builds it).
    static var tongban: String {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return exe.deletingLastPathComponent().appendingPathComponent("tongban").path
    }

    @Test func theRealHelperDecodesWhatInProcessDecodes() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.tongban), "tongban is built at \(Self.tongban)")
        let picture = try ImageCodec.convert(SampleMedia.png(width: 64, height: 32) { x, y in (UInt8(x * 4), UInt8(y * 8), 50) }, to: ".webp")
        let helper = try await PictureDecoder.helper(executable: Self.tongban).decode(picture, 16, 16)
        let local = try await PictureDecoder.inProcess.decode(picture, 16, 16)
        #expect(helper == local)
        #expect(helper.width == 16 && helper.height == 8)
        await #expect(throws: ImageCodec.Failure(description: "not a JPEG, PNG, GIF or WebP picture")) {
            try await PictureDecoder.helper(executable: Self.tongban).decode(Data("<svg/>".utf8), 16, 16)
        }
    }

    @Test func theHelperGetsItsThreeStandardDescriptorsAndNoneOfOurs() async throws {
        // A descriptor of ours that is not closed on exec: only the spawn itself keeps it from the helper.
        let ours = open("/dev/null", O_RDONLY)
        defer { close(ours) }
        #expect(ours > 2)
        // `test` opens nothing, so only the shell's own descriptors show.
        let script = "for n in $(seq 0 \(ours + 16)); do [ -e /proc/$$/fd/$n ] && echo $n; done; true"
        let listed = try await runHelper("/bin/sh", ["-c", script], input: Data(), timeout: .seconds(30), outputLimit: 4096)
        #expect(listed.ending == .exit(0))
        #expect(String(decoding: listed.output, as: UTF8.self).split(separator: "\n") == ["0", "1", "2"])
    }

    /// Stand-ins for a decoder that crashes, hangs or answers nonsense: the
    /// client gets an error each time and carries on.
    static func fake(_ script: String, timeout: Duration = .seconds(15)) -> PictureDecoder {
        .helper(executable: "/bin/sh", arguments: ["-c", script, "fake-decoder"], timeout: timeout)
    }

    @Test func aCrashingDecoderIsAnError() async {
        await #expect(throws: ImageCodec.Failure(description: "the picture decoder stopped on signal 11", kind: .crashed)) {
            try await Self.fake("cat >/dev/null; kill -SEGV $$").decode(quarters, 16, 16)
        }
    }

    @Test func aHungDecoderIsKilledAtItsTimeout() async {
        let start = ContinuousClock.now
        await #expect(throws: ImageCodec.Failure(description: "the picture took too long to decode", kind: .timeout)) {
            try await Self.fake("exec sleep 30", timeout: .milliseconds(300)).decode(quarters, 16, 16)
        }
        // Well under the helper's 30 s: it was killed, not waited for (a loaded machine may take seconds to get there).
        #expect(ContinuousClock.now - start < .seconds(25))
    }

    @Test func nonsenseOrTooMuchOutputIsAnError() async {
        await #expect(throws: ImageCodec.Failure(description: "the picture decoder gave no picture", kind: .crashed)) {
            try await Self.fake("echo hello").decode(quarters, 16, 16)
        }
        // A header that claims more than was asked for.
        await #expect(throws: ImageCodec.Failure(description: "the picture decoder gave a malformed picture", kind: .crashed)) {
            try await Self.fake(#"printf 'TBRGB1\000\000\004\000\000\000\000\001'"#).decode(quarters, 16, 16)
        }
        // 16×16 pixels are 14 + 768 bytes: a helper that goes on is stopped there.
        let start = ContinuousClock.now
        await #expect(throws: ImageCodec.Failure(description: "the picture decoder wrote more than 782 bytes", kind: .crashed)) {
            try await Self.fake("exec head -c 1000000000 /dev/zero").decode(quarters, 16, 16)
        }
        #expect(ContinuousClock.now - start < .seconds(10), "killed, not read to the end")
        await #expect(throws: ImageCodec.Failure(description: "broken picture")) {
            try await Self.fake("echo 'broken picture' >&2; exit 1").decode(quarters, 16, 16)
        }
    }

    @Test func aHelperThatReadsNothingOrFloodsStderrIsStillAnError() async {
        // 4 MiB the helper never reads: the write fails (EPIPE), this process carries on.
        let big = Data(count: 4 * 1024 * 1024)
        await #expect(throws: ImageCodec.Failure(description: "not a readable image")) {
            try await Self.fake("exit 1").decode(big, 16, 16)
        }
        // 10 MB on stderr: drained, the first line kept.
        await #expect(throws: ImageCodec.Failure(description: "x")) {
            try await Self.fake("cat >/dev/null; yes x | head -c 10000000 >&2; exit 1").decode(quarters, 16, 16)
        }
    }

    @Test func atMostTwoHelpersRunAtOnce() async throws {
        let decoder = PictureDecoder.helper(executable: "/bin/sh", arguments: ["-c", "cat >/dev/null; sleep 0.4; exit 1", "slow"],
                                            concurrency: 2)
        let start = ContinuousClock.now
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { (try? await decoder.decode(quarters, 16, 16)) == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 6)
        #expect(ContinuousClock.now - start >= .milliseconds(1150), "six 0.4 s helpers, two at a time, take three rounds")
    }

    @Test func theHelperFormatRoundTrips() throws {
        let image = try ImageCodec.decode(quarters)
        #expect(try HelperFormat.read(HelperFormat.write(image), maxWidth: 4, maxHeight: 4) == image)
        #expect(throws: ImageCodec.Failure.self) { try HelperFormat.read(HelperFormat.write(image).dropLast(), maxWidth: 4, maxHeight: 4) }
        #expect(throws: ImageCodec.Failure.self) { try HelperFormat.read(HelperFormat.write(image), maxWidth: 3, maxHeight: 4) }
    }
}

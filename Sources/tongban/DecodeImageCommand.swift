import ArgumentParser
import ChatCore
import ChatMedia
import ChatSync
import Foundation

/// The picture decoder the full-screen client starts for every picture that
/// came over the network (ChatMedia.PictureDecoder): this same binary, so a
/// crash or a hang in libvips ends the helper, never the chat.
struct DecodeImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-image",
        abstract: "Decode a JPEG, PNG, GIF or WebP picture from stdin for the full-screen client.",
        shouldDisplay: false)
    @Option(help: "Shrink to at most this many pixels across.") var maxWidth: Int
    @Option(help: "Shrink to at most this many pixels down.") var maxHeight: Int

    /// `/proc/self/exe` runs this very binary even when the file on disk was
    /// replaced by a newer build since the client started; without /proc,
    /// the path it was started from.
    static let decoder: PictureDecoder = {
        let exe = FileManager.default.isExecutableFile(atPath: "/proc/self/exe")
            ? "/proc/self/exe" : (Bundle.main.executablePath ?? CommandLine.arguments[0])
        return PictureDecoder.helper(executable: exe)
    }()

    func run() throws {
        guard (1...HelperFormat.maxSide).contains(maxWidth), (1...HelperFormat.maxSide).contains(maxHeight) else {
            throw ValidationError("--max-width and --max-height are 1 to \(HelperFormat.maxSide)")
        }
        // The client's wall-clock timeout kills a hung helper; a CPU limit
        // also ends one started by hand.
        var limit = rlimit(rlim_cur: 20, rlim_max: 20)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
        var input = Data()
        while input.count <= HelperFormat.maxInput,
              let chunk = try FileHandle.standardInput.read(upToCount: 256 * 1024), !chunk.isEmpty {
            input.append(chunk)
        }
        guard input.count <= HelperFormat.maxInput else {
            throw CLIError("the picture is larger than \(HelperFormat.maxInput / 1_048_576) MiB")
        }
        let image: RGBImage
        do {
            image = try ImageCodec.decode(input, maxWidth: maxWidth, maxHeight: maxHeight)
        } catch let e as ImageCodec.Failure {
            // The client shows this line as it is: no "Error:" in front.
            try? FileHandle.standardError.write(contentsOf: Data((TerminalSanitizer.sanitize(e.description) + "\n").utf8))
            throw ExitCode(1)
        }
        try FileHandle.standardOutput.write(contentsOf: HelperFormat.write(image))
    }
}

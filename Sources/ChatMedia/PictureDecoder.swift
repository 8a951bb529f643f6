import ChatCore
import Foundation
import Spawn

/// Where pictures that came over the network are decoded.
///
/// The client decodes in a helper process (`tongban decode-image`): a
/// picture that crashes or hangs libvips takes the helper down, not the
/// chat, the helper is killed when it runs past its time, and libvips with
/// its hundred libraries never maps into the client. Tests use `inProcess`.
public struct PictureDecoder: Sendable {
    public let decode: @Sendable (_ data: Data, _ maxWidth: Int, _ maxHeight: Int) async throws -> RGBImage

    public init(decode: @escaping @Sendable (_ data: Data, _ maxWidth: Int, _ maxHeight: Int) async throws -> RGBImage) {
        self.decode = decode
    }

    public static let inProcess = PictureDecoder { data, w, h in try ImageCodec.decode(data, maxWidth: w, maxHeight: h) }

    /// Runs `executable arguments… --max-width W --max-height H` with the
    /// picture on stdin; it answers in `HelperFormat`. At most `concurrency`
    /// helpers run at once (a chat full of pictures does not start one
    /// process per picture on two cores); the others wait their turn.
    public static func helper(executable: String, arguments: [String] = ["decode-image"],
                              timeout: Duration = .seconds(15), concurrency: Int = 2) -> PictureDecoder {
        let slots = Slots(max(1, concurrency))
        return PictureDecoder { data, w, h in
            guard w > 0, h > 0, w <= HelperFormat.maxSide, h <= HelperFormat.maxSide else {
                throw ImageCodec.Failure(description: "picture size \(w)×\(h) out of range")
            }
            let args = arguments + ["--max-width", String(w), "--max-height", String(h)]
            await slots.acquire()
            let outcome = await Swift.Result(catching: {
                try await runHelper(executable, args, input: data, timeout: timeout,
                                    outputLimit: HelperFormat.headerSize + w * h * 3)
            })
            await slots.release()
            let result: ChildProcess.Run
            do {
                result = try outcome.get()
            } catch let e as ImageCodec.Failure {
                throw e
            } catch {
                // The helper could not be started (no processes or files left, say).
                throw ImageCodec.Failure(description: "the picture decoder did not start: \(error)", kind: .unavailable)
            }
            if result.overLimit {
                throw ImageCodec.Failure(description: "the picture decoder wrote more than \(HelperFormat.headerSize + w * h * 3) bytes",
                                         kind: .crashed)
            }
            if result.timedOut { throw ImageCodec.Failure(description: "the picture took too long to decode", kind: .timeout) }
            guard result.ending.succeeded else {
                if case .signal(let signal) = result.ending {
                    throw ImageCodec.Failure(description: "the picture decoder stopped on signal \(signal)", kind: .crashed)
                }
                let said = String(decoding: result.errorOutput.prefix(300), as: UTF8.self)
                    .split(separator: "\n").first.map { TerminalSanitizer.sanitize(String($0)) } ?? ""
                throw ImageCodec.Failure(description: said.isEmpty ? "not a readable image" : said)
            }
            return try HelperFormat.read(result.output, maxWidth: w, maxHeight: h)
        }
    }
}

extension Swift.Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A counting semaphore for async callers.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// The helper's answer on stdout: "TBRGB1" + width and height (UInt32, big
/// endian) + width × height × 3 bytes of RGB.
public enum HelperFormat {
    static let magic = Array("TBRGB1".utf8)
    public static let headerSize = 6 + 8
    /// Larger than any terminal, small enough that w × h × 3 stays sane.
    public static let maxSide = 4096
    /// What the helper reads from stdin at most (the server's media limit is lower).
    public static let maxInput = 32 * 1024 * 1024

    public static func write(_ image: RGBImage) -> Data {
        var d = Data(magic)
        for v in [image.width, image.height] {
            d.append(contentsOf: [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)])
        }
        d.append(contentsOf: image.pixels)
        return d
    }

    public static func read(_ data: Data, maxWidth: Int, maxHeight: Int) throws -> RGBImage {
        let b = [UInt8](data)
        guard b.count >= headerSize, Array(b[0..<6]) == magic else {
            throw ImageCodec.Failure(description: "the picture decoder gave no picture", kind: .crashed)
        }
        func be32(_ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
        let w = be32(6), h = be32(10)
        guard w > 0, h > 0, w <= maxWidth, h <= maxHeight, b.count == headerSize + w * h * 3 else {
            throw ImageCodec.Failure(description: "the picture decoder gave a malformed picture", kind: .crashed)
        }
        return RGBImage(width: w, height: h, pixels: Array(b[headerSize...]))
    }
}

/// One run of the decoder (`ChildProcess.collect`) on a thread of its own:
/// the blocking pipe work never runs on the pools that the async code and
/// the network need.
func runHelper(_ executable: String, _ arguments: [String], input: Data,
               timeout: Duration, outputLimit: Int) async throws -> ChildProcess.Run {
    try await withCheckedThrowingContinuation { (cont: CheckedContinuation<ChildProcess.Run, Error>) in
        let t = Thread {
            cont.resume(with: Swift.Result {
                try ChildProcess.collect(executable, arguments, input: input, stderr: nil, timeout: timeout, outputLimit: outputLimit)
            })
        }
        t.name = "tongban-helper"
        t.start()
    }
}

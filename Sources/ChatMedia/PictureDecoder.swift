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
                try await HelperProcess.run(executable: executable, arguments: args, input: data,
                                            timeout: timeout, outputLimit: HelperFormat.headerSize + w * h * 3)
            })
            await slots.release()
            let result: HelperProcess.Result
            do {
                result = try outcome.get()
            } catch let e as ImageCodec.Failure {
                throw e
            } catch {
                // The helper could not be started (no processes or files left, say).
                throw ImageCodec.Failure(description: "the picture decoder did not start: \(error)", kind: .unavailable)
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

/// One run of an external program with an argument list (never a shell):
/// `input` on its stdin, stdout read up to `outputLimit` bytes, killed when
/// it runs past `timeout`. The blocking pipe work runs on threads of its
/// own, never on the shared pools that the async code and the network need.
public enum HelperProcess {
    public struct Result: Sendable {
        public var ending: ChildProcess.Ending
        public var output: Data
        public var errorOutput: Data
        public var timedOut: Bool
    }

    public static func run(executable: String, arguments: [String], input: Data,
                           timeout: Duration, outputLimit: Int) async throws -> Result {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Result, Error>) in
            spawnThread("tongban-helper") {
                cont.resume(with: Swift.Result {
                    try runBlocking(executable: executable, arguments: arguments, input: input, timeout: timeout, outputLimit: outputLimit)
                })
            }
        }
    }

    static func spawnThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let t = Thread(block: body)
        t.name = name
        t.start()
    }

    static func runBlocking(executable: String, arguments: [String], input: Data,
                            timeout: Duration, outputLimit: Int) throws -> Result {
        // A helper that exits before reading all its input makes the write fail, not end us.
        ChildProcess.ignoreBrokenPipes()
        var pipes: [ChildProcess.Pipe] = []
        let child: ChildProcess
        do {
            for _ in 0..<3 { pipes.append(try ChildProcess.Pipe()) }
            child = try ChildProcess(executable, arguments, stdin: .descriptor(pipes[0].read),
                                     stdout: .descriptor(pipes[1].write), stderr: .descriptor(pipes[2].write))
        } catch {
            for p in pipes { Glibc.close(p.read); Glibc.close(p.write) }
            throw error
        }
        let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
        // The child has its own copies of its ends now.
        Glibc.close(stdin.read)
        Glibc.close(stdout.write)
        Glibc.close(stderr.write)
        let feed = FileHandle(fileDescriptor: stdin.write, closeOnDealloc: false)
        let output = FileHandle(fileDescriptor: stdout.read, closeOnDealloc: false)
        let errors = FileHandle(fileDescriptor: stderr.read, closeOnDealloc: false)
        // The killer: SIGKILL once the time is up (a hung decoder does not
        // get to clean up). Cancelled when the helper is done.
        let timedOut = LockedFlag()
        let killer = DispatchWorkItem {
            timedOut.set()
            child.send(SIGKILL)
        }
        let ms = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms), execute: killer)
        // Feed stdin while reading stdout and stderr, so no pipe fills up;
        // each thread closes its own end when it is done with it. A helper
        // that dies early makes the write fail with EPIPE, which is not an
        // error here: its exit status says what happened.
        let group = DispatchGroup()
        group.enter()
        spawnThread("tongban-helper-in") {
            try? feed.write(contentsOf: input)
            try? feed.close()
            group.leave()
        }
        let errorOutput = LockedData()
        group.enter()
        spawnThread("tongban-helper-err") {
            errorOutput.set(readUpTo(errors, limit: 64 * 1024))
            // Past the limit, the rest is read and dropped (the killer ends a helper that never stops).
            while let more = try? errors.read(upToCount: 64 * 1024), !more.isEmpty {}
            try? errors.close()
            group.leave()
        }
        let out = readUpTo(output, limit: outputLimit)
        let tooMuch = out.count > outputLimit
        if tooMuch { child.send(SIGKILL) }
        try? output.close()
        let ending = child.waitUntilExit()
        killer.cancel()
        // A child the helper left behind could hold the pipes open: its
        // output is not waited for past a moment (its threads end with it).
        _ = group.wait(timeout: .now() + .seconds(2))
        if tooMuch {
            throw ImageCodec.Failure(description: "the picture decoder wrote more than \(outputLimit) bytes", kind: .crashed)
        }
        return Result(ending: ending, output: out, errorOutput: errorOutput.get(), timedOut: timedOut.get())
    }

    /// Reads to end of file, or until more than `limit` bytes came.
    static func readUpTo(_ h: FileHandle, limit: Int) -> Data {
        var out = Data()
        while out.count <= limit {
            guard let chunk = try? h.read(upToCount: 64 * 1024), !chunk.isEmpty else { break }
            out.append(chunk)
        }
        return out
    }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    func get() -> Bool { lock.lock(); defer { lock.unlock() }; return value }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Data()
    func set(_ d: Data) { lock.lock(); value = d; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return value }
}

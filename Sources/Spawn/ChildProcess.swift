import CSpawn
import Foundation
import Synchronization

/// A program started with an argument list (never a shell, no PATH
/// search) that gets only the descriptors it is given: its three standard
/// ones, and no other of ours (`closefrom` in the child).
///
/// Not Foundation's `Process`: on Linux it lists /proc/self/fd to close
/// what the child should not inherit, and that listing reads past the end
/// of its directory buffer when many descriptors are open (it crashed a
/// test run once).
public final class ChildProcess: Sendable {
    /// How the program ended.
    public enum Ending: Sendable, Equatable {
        case exit(Int32)
        case signal(Int32)
        /// Its status was lost: something else in this process reaped it.
        case unknown

        public var succeeded: Bool { self == .exit(0) }
    }

    /// What the child gets as a standard descriptor.
    public enum Descriptor: Sendable {
        /// /dev/null.
        case null
        /// The same as ours (a program that takes over the terminal).
        case inherit
        /// This descriptor of ours, which the caller still owns.
        case descriptor(Int32)
    }

    public let pid: pid_t
    /// nil until the child has been reaped. Signals are sent under this
    /// lock while it is nil, so never to another process given the pid.
    private let ending = Mutex<Ending?>(nil)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `executable` (a path). `ownGroup`: in a process group of its
    /// own, so a Ctrl-C at the terminal does not reach it; a program that
    /// uses the terminal must stay in ours, or it stops as a background job.
    /// `onExit` hears the ending, on a thread of its own.
    public init(_ executable: String, _ arguments: [String], stdin: Descriptor = .null, stdout: Descriptor = .null,
                stderr: Descriptor = .null, ownGroup: Bool = true, onExit: (@Sendable (Ending) -> Void)? = nil) throws {
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        func number(_ d: Descriptor) throws -> Int32 {
            switch d {
            case .inherit: return -1
            case .descriptor(let fd): return fd
            case .null:
                let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
                guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                opened.append(fd)
                return fd
            }
        }
        let (i, o, e) = (try number(stdin), try number(stdout), try number(stderr))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        _ = Self.childrenWaitedFor
        var pid = pid_t()
        let rc = cspawn(&pid, executable, argv, i, o, e, ownGroup ? 1 : 0)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        self.pid = pid
        let thread = Thread { [self] in
            let how = reap()
            onExit?(how)
        }
        thread.name = "tongban-child-\(pid)"
        thread.start()
    }

    /// With SIGCHLD ignored (a parent can leave it so across exec) the
    /// kernel reaps children itself: no status, and a pid given again while
    /// `send` still held it. Back to the default, once.
    private static let childrenWaitedFor: Void = {
        var current = sigaction()
        guard sigaction(SIGCHLD, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler else { return }
        // Handlers are C function pointers, compared by address.
        if unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { signal(SIGCHLD, SIG_DFL) }
    }()

    /// Waits for the child's end without reaping it, then reaps it under
    /// the lock, so `send` never signals a pid that was given again.
    private func reap() -> Ending {
        var info = siginfo_t()
        var rc: Int32
        repeat { rc = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) } while rc == -1 && errno == EINTR
        let how = ending.withLock { ending in
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &status, 0) } while reaped == -1 && errno == EINTR
            let signal = status & 0x7f
            let how: Ending = reaped != pid ? .unknown : signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
            ending = how
            return how
        }
        ended.signal()
        return how
    }

    public var isRunning: Bool { ending.withLock { $0 == nil } }

    /// Sends `signal` unless the child has already ended.
    public func send(_ signal: Int32) {
        ending.withLock { if $0 == nil { _ = kill(pid, signal) } }
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() -> Ending {
        ended.wait()
        ended.signal()
        return ending.withLock { $0 } ?? .unknown
    }

    /// A pipe whose two ends are closed on exec (the child gets its end as
    /// a standard descriptor, through a `dup2`, which clears that).
    public struct Pipe: Sendable {
        public let read: Int32, write: Int32

        public init() throws {
            var fds: [Int32] = [-1, -1]
            let rc = cspawn_pipe(&fds)
            guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
            (read, write) = (fds[0], fds[1])
        }
    }
}

extension ChildProcess {
    /// A write to a program that has exited raises SIGPIPE, which would end
    /// this process: ignored, once, so the write fails with EPIPE instead
    /// and the program's exit status says what happened. (Children get
    /// every signal back at its default.)
    public static func ignoreBrokenPipes() { _ = brokenPipesIgnored }
    private static let brokenPipesIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// What a run to the end collected.
    public struct Run: Sendable {
        public var ending: Ending
        public var output: Data
        /// Its standard error, when asked to keep it (at most 64 KiB).
        public var errorOutput: Data
        /// It ran past its time and was killed.
        public var timedOut: Bool
        /// It wrote more than the output limit and was killed.
        public var overLimit: Bool
    }

    /// Runs `executable` to its end and collects its standard output.
    /// `input` (nil: /dev/null) is written from a thread of its own while
    /// the output is read here, so neither pipe can fill up and stall it.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           stderr: Descriptor = .inherit) throws -> (output: Data, ending: Ending) {
        let run = try collect(executable, arguments, input: input, stderr: stderr)
        return (run.output, run.ending)
    }

    /// `run`, for a program that may misbehave: killed (SIGKILL, no time
    /// to clean up) once `timeout` passes or once it wrote more than
    /// `outputLimit` bytes; its standard error kept when `stderr` is nil.
    /// A program that dies before reading all its input is not an error
    /// here: its ending says what happened.
    public static func collect(_ executable: String, _ arguments: [String], input: Data? = nil,
                               stderr: Descriptor? = .inherit, timeout: Duration? = nil,
                               outputLimit: Int = .max) throws -> Run {
        ignoreBrokenPipes()
        var pipes: [Pipe] = []
        let child: ChildProcess
        let (out, feed, errors): (Int, Int?, Int?)
        do {
            pipes.append(try Pipe())
            out = 0
            feed = input == nil ? nil : pipes.count
            if input != nil { pipes.append(try Pipe()) }
            errors = stderr == nil ? pipes.count : nil
            if stderr == nil { pipes.append(try Pipe()) }
            child = try ChildProcess(executable, arguments, stdin: feed.map { .descriptor(pipes[$0].read) } ?? .null,
                                     stdout: .descriptor(pipes[out].write),
                                     stderr: stderr ?? .descriptor(pipes[errors!].write))
        } catch {
            for p in pipes { close(p.read); close(p.write) }
            throw error
        }
        // The child has its own copies of its ends now.
        close(pipes[out].write)
        let done = DispatchGroup()
        if let feed, let input {
            close(pipes[feed].read)
            let handle = FileHandle(fileDescriptor: pipes[feed].write, closeOnDealloc: true)
            done.enter()
            Thread {
                try? handle.write(contentsOf: input)
                try? handle.close()
                done.leave()
            }.start()
        }
        let errorOutput = Mutex(Data())
        if let errors {
            close(pipes[errors].write)
            let handle = FileHandle(fileDescriptor: pipes[errors].read, closeOnDealloc: true)
            done.enter()
            Thread {
                let kept = (try? readUpTo(handle, limit: 64 * 1024)) ?? Data()
                errorOutput.withLock { $0 = kept.prefix(64 * 1024) }
                // Past the limit, the rest is read and dropped.
                while let more = try? handle.read(upToCount: 64 * 1024), !more.isEmpty {}
                try? handle.close()
                done.leave()
            }.start()
        }
        let timedOut = Mutex(false)
        let killer = DispatchWorkItem {
            timedOut.withLock { $0 = true }
            child.send(SIGKILL)
        }
        if let timeout {
            let ms = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms), execute: killer)
        }
        let output = FileHandle(fileDescriptor: pipes[out].read, closeOnDealloc: true)
        let read = Result { try readUpTo(output, limit: outputLimit) }
        let overLimit = ((try? read.get())?.count ?? 0) > outputLimit
        if overLimit { child.send(SIGKILL) }
        try? output.close()
        let ending = child.waitUntilExit()
        killer.cancel()
        // A grandchild left behind could hold the pipes open: it is not
        // waited for past a moment (the threads end with it).
        _ = done.wait(timeout: .now() + .seconds(2))
        // A failed read is an error, not a short answer.
        return Run(ending: ending, output: try read.get(), errorOutput: errorOutput.withLock { $0 },
                   timedOut: timedOut.withLock { $0 }, overLimit: overLimit)
    }

    /// Reads to end of file, or until more than `limit` bytes came.
    static func readUpTo(_ h: FileHandle, limit: Int) throws -> Data {
        var out = Data()
        while out.count <= limit {
            guard let chunk = try h.read(upToCount: 64 * 1024), !chunk.isEmpty else { break }
            out.append(chunk)
        }
        return out
    }
}

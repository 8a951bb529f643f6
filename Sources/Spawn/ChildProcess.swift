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

    /// Runs `executable` to its end and collects its standard output.
    /// `input` (nil: /dev/null) is written from a thread of its own while
    /// the output is read here, so neither pipe can fill up and stall it.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           stderr: Descriptor = .inherit) throws -> (output: Data, ending: Ending) {
        ignoreBrokenPipes()
        var pipes: [Pipe] = []
        let child: ChildProcess
        do {
            pipes.append(try Pipe())
            if input != nil { pipes.append(try Pipe()) }
            let stdin: Descriptor = pipes.count > 1 ? .descriptor(pipes[1].read) : .null
            child = try ChildProcess(executable, arguments, stdin: stdin, stdout: .descriptor(pipes[0].write), stderr: stderr)
        } catch {
            for p in pipes { close(p.read); close(p.write) }
            throw error
        }
        // The child has its own copies of its ends now.
        close(pipes[0].write)
        if let input, pipes.count > 1 {
            close(pipes[1].read)
            let feed = FileHandle(fileDescriptor: pipes[1].write, closeOnDealloc: true)
            Thread {
                try? feed.write(contentsOf: input)
                try? feed.close()
            }.start()
        }
        let output = FileHandle(fileDescriptor: pipes[0].read, closeOnDealloc: true)
        let read = Result { try output.readToEnd() ?? Data() }
        try? output.close()
        let ending = child.waitUntilExit()
        // A failed read is an error, not a short answer.
        return (try read.get(), ending)
    }
}

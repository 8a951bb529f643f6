import Foundation

/// The real terminal, through ncursesw: blits `Grid`s and reads `Key`s.
///
/// All ncurses calls happen on one dedicated thread that this object owns
/// (ncurses is not thread safe, and a blocking read on a concurrency-pool
/// thread would starve a small machine). That thread loops: run the queued
/// requests (latest frame, bell, title), then poll `wget_wch` for up to
/// `pollMilliseconds`, decode (`KeyDecoder`) and yield keys to `keys`. So a
/// `render` from any thread is on screen within about one poll interval.
///
/// `@unchecked Sendable` because the compiler cannot see that confinement:
/// the ncurses state (`NCursesScreen`) is created, used and destroyed on the
/// terminal thread only and never escapes it, and everything other threads
/// touch (size, frame slot, request queue, lifecycle state) is guarded by
/// `lock`.
///
/// Typical use:
/// ```swift
/// let terminal = Terminal()
/// try terminal.start()
/// defer { terminal.stop() }
/// terminal.render(frame(terminal.size))
/// for await key in terminal.keys { ... }
/// ```
/// While it runs ncurses owns stdout: log to a file, never print.
/// The terminal runs in raw mode: Ctrl-C arrives as `.ctrl("c")` instead of
/// killing the process, so the app must bind a quit key.
public final class Terminal: @unchecked Sendable {
    /// Why `start()` failed.
    public enum StartError: Error, Equatable, CustomStringConvertible {
        /// stdin or stdout is not a terminal (piped, or no tty).
        case notATerminal
        /// Neither the user's locale nor C.UTF-8 is a UTF-8 locale.
        case noUTF8Locale
        /// ncurses does not know the terminal type.
        case cannotInitialize(term: String)
        /// `start()` was already called on this terminal.
        case alreadyStarted

        public var description: String {
            switch self {
            case .notATerminal:
                return "standard input and output must be a terminal for the full-screen interface"
            case .noUTF8Locale:
                return "no UTF-8 locale available (tried the environment's and C.UTF-8)"
            case .cannotInitialize(let term):
                return "cannot initialise the terminal (TERM=\(term.isEmpty ? "unset" : term)); try TERM=xterm-256color"
            case .alreadyStarted:
                return "the terminal was already started"
            }
        }
    }

    /// Keys, pastes and resizes, in order. Finishes after `stop()`.
    public let keys: AsyncStream<Key>

    private let continuation: AsyncStream<Key>.Continuation
    private let pollMilliseconds: Int32
    private let environment: [String: String]
    private let lock = NSLock()

    private enum Phase {
        case idle, starting, running, stopping, stopped
    }

    private enum Request {
        case bell
        case title(String)
        case invalidate
    }

    private struct Frame {
        var grid: Grid
        var cursor: (x: Int, y: Int)?
    }

    // Guarded by `lock`.
    private var phase = Phase.idle
    private var currentSize = (width: 80, height: 24)
    private var pendingFrame: Frame?
    private var requests: [Request] = []
    private var startResult: Result<Void, StartError>?
    // Signalled by the terminal thread.
    private let started = DispatchSemaphore(value: 0)
    /// Bench mode (`TONGBAN_BENCH_LOG`): frame timings are appended here.
    private let benchLog: String?
    private let launchedAt: UInt64
    private let finished = DispatchSemaphore(value: 0)

    /// `pollMilliseconds`: how long the terminal thread waits for input before
    /// it looks at the request queue again (the render latency bound).
    ///
    /// `benchLog` (bench mode, `TONGBAN_BENCH_LOG`): a file that gets
    /// `first_frame_ms N` (from `launchedAt`, monotonic ns) and
    /// `key_to_frame_ms N` (key read to the next frame drawn) lines.
    public init(pollMilliseconds: Int = 30, environment: [String: String] = ProcessInfo.processInfo.environment,
                benchLog: String? = nil, launchedAt: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        (keys, continuation) = AsyncStream.makeStream(of: Key.self, bufferingPolicy: .unbounded)
        self.pollMilliseconds = Int32(max(1, min(pollMilliseconds, 1000)))
        self.environment = environment
        self.benchLog = benchLog
        self.launchedAt = launchedAt
    }

    private func bench(_ line: String) {
        guard let benchLog else { return }
        if !FileManager.default.fileExists(atPath: benchLog) {
            _ = FileManager.default.createFile(atPath: benchLog, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        guard let h = FileHandle(forWritingAtPath: benchLog) else { return }
        _ = try? h.seekToEnd()
        try? h.write(contentsOf: Data((line + "\n").utf8))
        try? h.close()
    }

    /// Takes over the terminal (alternate screen, raw mode, no cursor,
    /// bracketed paste) and starts the terminal thread. Returns once ncurses
    /// is set up and `size` is valid.
    public func start() throws(StartError) {
        let canStart = lock.withLock {
            guard phase == .idle else { return false }
            phase = .starting
            return true
        }
        guard canStart else { throw .alreadyStarted }
        let thread = Thread { [self] in
            self.threadMain()
        }
        thread.name = "tongban.terminal"
        thread.start()
        started.wait()
        let result = lock.withLock { startResult }
        if case .failure(let error) = result {
            continuation.finish()
            throw error
        }
    }

    /// Gives the terminal back (endwin, bracketed paste off, cursor and title
    /// restored) after running requests queued so far, and finishes `keys`.
    /// Blocks for up to one poll interval. Safe to call more than once.
    public func stop() {
        let wasRunning = lock.withLock {
            guard phase == .running else { return false }
            phase = .stopping
            return true
        }
        guard wasRunning else { return }
        finished.wait()
        continuation.finish()
    }

    /// Columns and rows. Updated before `.resize` is delivered; 80×24 until
    /// `start()`.
    public var size: (width: Int, height: Int) {
        lock.withLock { currentSize }
    }

    /// Shows `grid` (top-left aligned; cells beyond the screen are not drawn,
    /// screen beyond the grid is blank). Only the newest frame is kept: a
    /// frame replaced before the terminal thread got to it is never drawn.
    ///
    /// `cursor`: where to show the terminal's own cursor (column, row), e.g.
    /// the input caret, so that input methods place their candidate window
    /// there; nil hides it.
    public func render(_ grid: Grid, cursor: (x: Int, y: Int)? = nil) {
        lock.withLock { pendingFrame = Frame(grid: grid, cursor: cursor) }
    }

    /// Clears the terminal and repaints the last frame in full (for Ctrl-L,
    /// or after something else wrote to the terminal).
    public func invalidate() {
        lock.withLock { requests.append(.invalidate) }
    }

    /// Rings the terminal bell.
    public func bell() {
        lock.withLock { requests.append(.bell) }
    }

    /// Sets the window (or tmux pane) title with OSC 0, only when TERM looks
    /// like xterm, tmux, screen or another terminal known to support it.
    /// Control characters are stripped. The previous title is restored by
    /// `stop()` where the terminal keeps a title stack.
    public func setTitle(_ title: String) {
        lock.withLock { requests.append(.title(title)) }
    }

    // MARK: - Terminal thread

    private func threadMain() {
        let screen: NCursesScreen
        do {
            screen = try NCursesScreen(environment: environment)
        } catch {
            lock.withLock {
                startResult = .failure(error)
                phase = .stopped
            }
            started.signal()
            return
        }
        lock.withLock {
            currentSize = screen.size
            startResult = .success(())
            phase = .running
        }
        started.signal()

        var decoder = KeyDecoder()
        var keys: [Key] = []
        var firstFrameDrawn = false
        var lastInputAt: UInt64 = 0
        var keyReadAt: UInt64?
        while true {
            let (frame, work, stopping) = lock.withLock {
                let taken = (pendingFrame, requests, phase == .stopping)
                pendingFrame = nil
                requests.removeAll()
                return taken
            }
            for request in work {
                switch request {
                case .bell: screen.bell()
                case .title(let title): screen.setTitle(title)
                case .invalidate: screen.invalidate()
                }
            }
            if let frame {
                screen.draw(frame.grid, cursor: frame.cursor)
                if benchLog != nil {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if !firstFrameDrawn {
                        bench("first_frame_ms \(Double(now - launchedAt) / 1e6)")
                    } else if let k = keyReadAt {
                        bench("key_to_frame_ms \(Double(now - k) / 1e6)")
                    }
                    firstFrameDrawn = true
                    keyReadAt = nil
                }
            }
            if stopping { break }

            keys.removeAll(keepingCapacity: true)
            // Right after a key the answer frame is due within milliseconds:
            // poll fast for a moment so it is drawn as soon as it is queued,
            // then fall back to the idle interval (idle CPU stays near zero).
            let recentInput = DispatchTime.now().uptimeNanoseconds - lastInputAt < 300_000_000
            let first = screen.read(timeout: recentInput ? 1 : pollMilliseconds)
            if first == .timeout {
                keys += decoder.feed(.timeout)
            } else {
                var input = first
                var count = 0
                // Drain what is already there (a paste, an IME commit) so a
                // grapheme split over several code points is joined.
                while input != .timeout && count < 65_536 {
                    if input == .keyCode(KeyDecoder.Code.resize) {
                        // Before `.resize` is seen, `size` must be the new one.
                        let newSize = screen.size
                        lock.withLock { currentSize = newSize }
                    }
                    keys += decoder.feed(input)
                    input = screen.read(timeout: 0)
                    count += 1
                }
                keys += decoder.endOfBatch()
            }
            if !keys.isEmpty {
                lastInputAt = DispatchTime.now().uptimeNanoseconds
                if keyReadAt == nil { keyReadAt = lastInputAt }
            }
            for key in keys {
                continuation.yield(key)
            }
        }
        screen.close()
        lock.withLock { phase = .stopped }
        finished.signal()
    }
}

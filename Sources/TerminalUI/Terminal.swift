import CTermWake
import Foundation

/// The real terminal, through ncursesw: blits `Grid`s and reads `Key`s.
///
/// All ncurses calls happen on one dedicated thread that this object owns
/// (ncurses is not thread safe, and a blocking read on a concurrency-pool
/// thread would starve a small machine). That thread loops: run the queued
/// requests (latest frame, bell, title), then sleep in poll(2) on stdin and
/// on a wake-up pipe, read what `wget_wch` has, decode (`KeyDecoder`) and
/// yield keys to `keys`. `render` (and every request, and SIGWINCH) writes to
/// the pipe, so a frame is drawn as soon as it is queued and an idle client
/// does not wake up at all; only while a key sequence is incomplete (ESC,
/// a paste) does it wake after `pollMilliseconds` to time it out.
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
    /// Keys, pastes and resizes, in order. Finishes after `stop()`.
    public let keys: AsyncStream<Key>

    private let continuation: AsyncStream<Key>.Continuation
    private let pollMilliseconds: Int32
    /// A hung-up stdin is looked at this many times before the keys end
    /// (one `pollMilliseconds` apart): once is enough for a closed pty, the
    /// rest is for a read that failed only for a moment.
    static let hangUpsBeforeQuitting = 3
    private let environment: [String: String]
    private let lock = NSLock()

    private enum Phase {
        case idle, starting, running, stopping, stopped
    }

    enum Request {
        case bell
        case title(String)
        case raw(String)
        case invalidate
        case mouse(Bool)
        case hyperlinks(Bool)
        /// Leave the screen, say so on `left`, wait on `back`, take it again.
        case suspend(left: DispatchSemaphore, back: DispatchSemaphore)
    }

    private struct Frame {
        var grid: Grid
        var cursor: (x: Int, y: Int)?
    }

    // Guarded by `lock`.
    /// A byte is in the wake-up pipe and the terminal thread has not yet
    /// taken what it was written for: later requests need not write again.
    private var wakePending = false
    private var phase = Phase.idle
    private var currentSize = (width: 80, height: 24)
    private var pendingFrame: Frame?
    /// How pictures are drawn (`TerminalGraphics`); half blocks until told.
    private var graphicsProtocol = GraphicsProtocol.halfBlock
    /// A cell's size in pixels, for sixel.
    private var cellSize = (width: 10, height: 20)
    private var requests: [Request] = []
    private var startResult: Result<Void, StartError>?
    /// `start()` was called (it waits for `started` once).
    private var startAwaited = false
    // Signalled by the terminal thread.
    private let started = DispatchSemaphore(value: 0)
    /// Bench mode (`TONGBAN_BENCH_LOG`): frame timings are appended here.
    private let benchLog: String?
    private let launchedAt: UInt64
    private let finished = DispatchSemaphore(value: 0)
    /// The wake-up pipe (read end for the terminal thread, write end for
    /// everyone else); -1 when it could not be made, and the thread then
    /// polls every `pollMilliseconds` as a fallback.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// `pollMilliseconds`: how long an incomplete key sequence (a lone ESC,
    /// a paste without its end marker) waits for more input.
    ///
    /// `benchLog` (bench mode, `TONGBAN_BENCH_LOG`): a file that gets
    /// `first_frame_ms N` (from `launchedAt`, monotonic ns) and
    /// `key_to_frame_ms N KEY` (key read to the next frame drawn; the first
    /// key of the batch) lines.
    public init(pollMilliseconds: Int = 30, environment: [String: String] = ProcessInfo.processInfo.environment,
                benchLog: String? = nil, launchedAt: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        (keys, continuation) = AsyncStream.makeStream(of: Key.self, bufferingPolicy: .unbounded)
        self.pollMilliseconds = Int32(max(1, min(pollMilliseconds, 1000)))
        self.environment = environment
        self.benchLog = benchLog
        self.launchedAt = launchedAt
        var fds: [Int32] = [-1, -1]
        if tb_wake_pipe(&fds) != 0 { fds = [-1, -1] }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Wakes the terminal thread for what the caller just queued (under
    /// `lock`), unless a wake-up is already on its way.
    /// Queues `r` for the terminal thread and wakes it.
    func request(_ r: Request) {
        lock.withLock { requests.append(r) }
        wake()
    }

    private func wake() {
        let needed = lock.withLock {
            if wakePending { return false }
            wakePending = true
            return true
        }
        if needed { tb_wake(wakeWrite) }
    }

    /// Bench mode only: `line` with the milliseconds since launch, for a
    /// trace of what the client did when (the sync loop's pulls, its socket).
    public func benchNote(_ line: String) {
        guard benchLog != nil else { return }
        lock.withLock { bench("t_ms \(Double(DispatchTime.now().uptimeNanoseconds - launchedAt) / 1e6) \(line)") }
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
    /// is set up and `size` is valid; after `begin()`, only waits for that.
    public func start() throws(StartError) {
        let (first, spawn) = lock.withLock { () -> (Bool, Bool) in
            guard !startAwaited else { return (false, false) }
            startAwaited = true
            return (true, takeStartingPhase())
        }
        guard first else { throw .alreadyStarted }
        if spawn { spawnThread() }
        started.wait()
        let result = lock.withLock { startResult }
        if case .failure(let error) = result {
            continuation.finish()
            throw error
        }
    }

    /// Starts the terminal thread and returns at once: ncurses sets itself
    /// up on it while the caller does other work (the client opens its
    /// store), and `start()` then waits for it. Does nothing once begun.
    public func begin() {
        if lock.withLock({ takeStartingPhase() }) { spawnThread() }
    }

    /// Under `lock`: whether this call moved the phase from idle.
    private func takeStartingPhase() -> Bool {
        guard phase == .idle else { return false }
        phase = .starting
        return true
    }

    private func spawnThread() {
        // On the caller's thread, before it goes on: setlocale is not safe
        // beside C calls on other threads (after `begin()`, SQLite's).
        do {
            try NCursesScreen.prepare()
        } catch {
            startFailed(error)
            return
        }
        let thread = Thread { [self] in
            self.threadMain()
        }
        thread.name = "tongban.terminal"
        thread.start()
    }

    /// Gives the terminal back (endwin, bracketed paste off, cursor and title
    /// restored) after running requests queued so far, and finishes `keys`.
    /// Safe to call more than once.
    public func stop() {
        let wasRunning = lock.withLock {
            guard phase == .running else { return false }
            phase = .stopping
            return true
        }
        guard wasRunning else { return }
        wake()
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
        wake()
    }

    /// How frames draw their pictures from now on (what the terminal
    /// answered to `TerminalGraphics.query`).
    public var graphics: GraphicsProtocol {
        get { lock.withLock { graphicsProtocol } }
        set { lock.withLock { graphicsProtocol = newValue } }
    }

    /// A cell's size in pixels, as the terminal said.
    public var cellPixels: (width: Int, height: Int) {
        get { lock.withLock { cellSize } }
        set { lock.withLock { cellSize = newValue } }
    }

    /// Whether tmux sits between us and the terminal.
    public var insideTmux: Bool { environment["TMUX"] != nil }

    /// Runs `body` (an editor, say) with the terminal to itself: curses
    /// leaves the screen first and takes it back, redrawn, after. `body`
    /// runs on a thread of its own (never one of the concurrency pool's),
    /// so it may wait for a process as long as the user edits.
    public func suspended<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        let left = DispatchSemaphore(value: 0), back = DispatchSemaphore(value: 0)
        let queued = lock.withLock { () -> Bool in
            guard phase == .running else { return false }
            requests.append(.suspend(left: left, back: back))
            return true
        }
        if queued { wake() }
        return await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            Thread {
                if queued { left.wait() }
                let result = body()
                if queued { back.signal() }
                done.resume(returning: result)
            }.start()
        }
    }

    // MARK: - Terminal thread

    /// The answer `start()` waits for, when there is no terminal to take.
    private func startFailed(_ error: StartError) {
        lock.withLock {
            startResult = .failure(error)
            phase = .stopped
        }
        started.signal()
    }

    private func threadMain() {
        // The kernel's name for it (top -H, /proc/PID/task/*/comm; 15 bytes).
        tb_name_this_thread("tongban-term")
        let screen: NCursesScreen
        do {
            screen = try NCursesScreen(environment: environment, wakeFD: wakeWrite)
        } catch {
            startFailed(error)
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
        var lastTimeoutAt: UInt64 = 0
        var keyReadAt: UInt64?
        // Described only when its line is written: String(describing:) of a
        // key is reflection, and the terminal's answers to the start's
        // queries come as keys, so describing each as it came cost the
        // start's terminal thread about a seventh of its time before its
        // first frame in bench mode (a `perf` profile of 40 starts).
        var keyRead: Key?
        // The pictures the newest frame holds, and those the terminal has.
        var wantedImages: [GridImage] = []
        var lastImages: [GridImage] = []
        // Wake-ups in a row that found stdin hung up and nothing to read.
        var hangUps = 0
        let pollNanos = UInt64(pollMilliseconds) * 1_000_000
        // Once quiet after the start or a busy spell, the code pages it
        // mapped go back to the kernel (ResidentPages); TONGBAN_KEEP_PAGES=1
        // keeps them, to measure what that saves.
        var pages: PageReleasePolicy? = environment["TONGBAN_KEEP_PAGES"] == "1" ? nil : PageReleasePolicy()
        while true {
            let (frame, work, stopping, graphics, cell) = lock.withLock {
                let taken = (pendingFrame, requests, phase == .stopping, graphicsProtocol, cellSize)
                pendingFrame = nil
                requests.removeAll()
                wakePending = false
                return taken
            }
            for request in work {
                switch request {
                case .bell: screen.bell()
                case .title(let title): screen.setTitle(title)
                case .raw(let sequence): screen.writeRaw(sequence)
                case .mouse(let on): screen.setMouse(on)
                case .hyperlinks(let on): screen.hyperlinks = on
                case .invalidate:
                    screen.invalidate()
                    // A cleared screen lost its pictures: they are sent again.
                    lastImages = []
                    Self.drawImages(wantedImages, after: &lastImages, graphics, cell: cell, screen)
                case .suspend(let left, let back):
                    lastImages = []  // sent again with the first frame after
                    // No key is read meanwhile: the other program has the terminal.
                    screen.suspend()
                    left.signal()
                    back.wait()
                    screen.resume()
                }
            }
            if let frame {
                screen.draw(frame.grid, cursor: frame.cursor)
                wantedImages = frame.grid.images
                Self.drawImages(wantedImages, after: &lastImages, graphics, cell: cell, screen)
                pages?.frameDrawn(at: DispatchTime.now().uptimeNanoseconds)
                if benchLog != nil {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if !firstFrameDrawn {
                        bench("first_frame_ms \(Double(now - launchedAt) / 1e6)")
                    } else if let k = keyReadAt {
                        // One line per frame: a pasted text's newlines are dropped.
                        let name = keyRead.map { String(String(describing: $0).filter { !$0.isNewline }.prefix(40)) } ?? ""
                        bench("key_to_frame_ms \(Double(now - k) / 1e6) \(name)")
                    }
                    firstFrameDrawn = true
                    keyReadAt = nil
                }
            }
            if stopping { break }

            keys.removeAll(keepingCapacity: true)
            // Sleep until input, a wake-up (frame, request, resize, stop) or,
            // while a key sequence is incomplete, its time-out.
            var timeout: Int32 = -1
            if decoder.isPending {
                let since = max(lastInputAt, lastTimeoutAt)
                let elapsed = DispatchTime.now().uptimeNanoseconds &- since
                timeout = elapsed >= pollNanos ? 0 : Int32((pollNanos - elapsed + 999_999) / 1_000_000)
            } else if wakeRead < 0 {
                timeout = pollMilliseconds
            }
            if let due = pages?.wait(now: DispatchTime.now().uptimeNanoseconds), timeout < 0 || due < timeout {
                timeout = due
            }
            let woke = tb_wait_input(wakeRead, timeout)
            var first = KeyDecoder.Input.timeout
            if woke & 4 != 0 {
                // stdin hung up or failed: ncurses' read decides; never spin on it.
                first = screen.read(timeout: 0)
                if first == .timeout { usleep(UInt32(pollMilliseconds) * 1000) }
            } else if woke & (1 | 8) != 0 || tb_take_winch() != 0 {
                // Input, or a signal (a resize that ncurses turns into a key).
                first = screen.read(timeout: 0)
            }
            hangUps = woke & 4 != 0 && first == .timeout ? hangUps + 1 : 0
            // The terminal's other end is gone and no hang-up signal ended
            // the process (started with setsid or nohup): the keys end, and
            // the app quits as if asked instead of staying online for nobody.
            if hangUps == Self.hangUpsBeforeQuitting { continuation.finish() }
            if first == .timeout {
                let now = DispatchTime.now().uptimeNanoseconds
                if decoder.isPending && now &- max(lastInputAt, lastTimeoutAt) >= pollNanos {
                    keys += decoder.feed(.timeout)
                    lastTimeoutAt = now
                }
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
                        lastImages = []  // a resized screen is redrawn whole
                    }
                    keys += decoder.feed(input)
                    input = screen.read(timeout: 0)
                    count += 1
                }
                keys += decoder.endOfBatch()
            }
            if !keys.isEmpty {
                lastInputAt = DispatchTime.now().uptimeNanoseconds
                pages?.keyRead(at: lastInputAt)
                if keyReadAt == nil {
                    keyReadAt = lastInputAt
                    if benchLog != nil { keyRead = keys[0] }
                }
            }
            for key in keys {
                continuation.yield(key)
            }
            if keys.isEmpty, pages?.takeDue(now: DispatchTime.now().uptimeNanoseconds) == true {
                let released = ResidentPages.release()
                if benchLog != nil { bench("released_kib \(released / 1024)") }
            }
        }
        screen.close()
        lock.withLock { phase = .stopped }
        finished.signal()
    }
}

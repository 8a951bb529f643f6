import ChatCore
import ChatMedia
import ChatSync
import Foundation
import TerminalUI

/// Runs the full-screen client on the real terminal until the user quits.
@MainActor
public enum TUIRunner {
    /// How the full screen ended.
    public enum Ending: Sendable, Equatable {
        case quit
        /// The server ended the login: the caller shows sign-in again.
        case signedOut
    }

    /// A terminal being taken over, with the environment read for it.
    public struct Takeover: Sendable {
        let terminal: Terminal
        let environment: [String: String]
    }

    /// Starts taking the terminal over on its own thread and returns at
    /// once, so that the caller opens the session meanwhile (ncurses' setup
    /// on the other core). Hand it to `run`, or to `giveBack` when the start
    /// goes no further.
    nonisolated public static func beginTakeover(launchedAt: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Takeover {
        // Read once: each read of `environment` builds the whole dictionary.
        let env = ProcessInfo.processInfo.environment
        let terminal = Terminal(environment: env, benchLog: env["TONGBAN_BENCH_LOG"], launchedAt: launchedAt)
        terminal.begin()
        return Takeover(terminal: terminal, environment: env)
    }

    /// The screen as it was, for an error to be read on.
    nonisolated public static func giveBack(_ takeover: Takeover) {
        try? takeover.terminal.start()
        takeover.terminal.stop()
    }

    @discardableResult
    public static func run(session: Session, takeover: Takeover? = nil, localizer: Localizer = .current,
                           pictureDecoder: PictureDecoder = .inProcess, mouse: Bool = true) async throws -> Ending {
        let takeover = takeover ?? beginTakeover()
        let env = takeover.environment, terminal = takeover.terminal
        try terminal.start()
        defer { terminal.stop() }
        let app = ChatApp(session: session, localizer: localizer)
        app.pictureDecoder = pictureDecoder
        app.bellEnabled = env["TONGBAN_NO_BELL"] == nil && env["NO_BELL"] == nil
        var problems: [String] = []
        do {
            app.keyMap = try KeyMap.load(from: session.paths.configDirectory.appendingPathComponent("keys.json"))
        } catch {
            problems.append("\(error)")
        }
        let (config, configProblems) = ClientConfig.load(from: session.paths.configDirectory.appendingPathComponent("config.json"),
                                                         environment: env)
        app.config = config
        // Every problem of both files on the status line, not only the last one found.
        problems += configProblems.map(\.description)
        if !problems.isEmpty { app.showStatus(problems.joined(separator: "; ")) }
        terminal.setMouse(config.mouse && mouse)
        terminal.setHyperlinks(Hyperlinks.wanted(setting: config.hyperlinks, environment: env))
        app.monochrome = env["NO_COLOR"].map { !$0.isEmpty } ?? false
        // A light or dark terminal decides the theme config.json did not name.
        if !app.monochrome, let query = config.backgroundQuery { terminal.notify(query) }
        app.trueColor = HalfBlock.trueColor(environment: env)
        app.onRedraw = { [weak app] in
            guard let app else { return }
            let size = terminal.size
            terminal.render(app.frame(width: size.width, height: size.height))
        }
        app.terminalSize = { terminal.size }
        // Ends `terminal.keys`, and with it the loop below.
        app.onQuit = {
            terminal.setTitle("")
            terminal.stop()
        }
        // Pictures in pixels where the terminal says it can (its replies come as keys).
        app.graphicsDetector = TerminalGraphics.Detector(environment: env)
        terminal.graphics = app.graphicsDetector.chosen
        app.onGraphics = { detector in
            terminal.graphics = detector.chosen
            terminal.cellPixels = detector.cell
        }
        if app.graphicsDetector.forced == nil { terminal.notify(TerminalGraphics.query(insideTmux: terminal.insideTmux)) }
        app.ring = { terminal.bell() }
        app.setTitle = { terminal.setTitle($0) }
        app.compose = { text in
            await ExternalEditor.compose(text, environment: env) { body in
                await terminal.suspended(body)
            }
        }
        let clipboard = Clipboard.choose(environment: env) { Programs.which($0) }
        app.copy = { text in
            switch clipboard {
            case .program(let path, let arguments):
                return Clipboard.run(path: path, arguments: arguments, text: text) ? (path as NSString).lastPathComponent : nil
            case .osc52(let insideTmux):
                guard let sequence = Clipboard.osc52(text, insideTmux: insideTmux) else { return nil }
                terminal.notify(sequence)
                return insideTmux ? "OSC 52 (tmux)" : "OSC 52"
            }
        }
        let method = NotifyMethod.choose(environment: env) { Programs.which($0) != nil }
        let insideTmux = env["TMUX"] != nil
        app.notify = { n in
            if method == .notifySend { Programs.notifySend(n); return }
            if let sequence = DesktopNotifier.escapeSequence(for: n, method: method, insideTmux: insideTmux) {
                terminal.notify(sequence)
            }
        }
        // Bench mode: when the socket came and went, and what each pull brought.
        if env["TONGBAN_BENCH_LOG"] != nil {
            _ = session.sync.observe { update in
                switch update {
                case .connection(let c): terminal.benchNote("connection \(c)")
                case .applied(let changes): terminal.benchNote("applied incoming \(changes.incoming.values.reduce(0, +))")
                default: break
                }
            }
        }
        // The first frame already shows the stored list: no network before it.
        app.loadListFromStore()
        app.drawFirstFrame()
        session.sync.start()
        await session.sendQueue.start()
        let loader = Task { await app.start() }
        let ticker = Ticker(app)
        app.onSecondTicksNeeded = { [weak ticker] in ticker?.restart() }
        ticker.restart()
        for await key in terminal.keys {
            await app.handle(key)
            if app.wantsQuit { break }
        }
        loader.cancel()
        ticker.stop()
        app.willQuit()
        // Quitting leaves the rooms (PROTOCOL.md v3: offline is left).
        await app.leaveRooms()
        session.sync.stop()
        await session.sendQueue.stop()
        terminal.setTitle("")
        return app.signedOut ? .signedOut : .quit
    }
}

/// Calls `ChatApp.tick()` when the time on screen may have changed: every
/// second while something counts seconds, else once a minute.
@MainActor
final class Ticker {
    private let app: ChatApp
    private var task: Task<Void, Never>?

    init(_ app: ChatApp) { self.app = app }

    /// Starts over with the app's current needs (a flash view just opened).
    func restart() {
        task?.cancel()
        task = Task { @MainActor [app] in
            while !Task.isCancelled {
                try? await Task.sleep(for: app.nextTickDelay())
                if Task.isCancelled { return }
                if await app.tick() { app.redraw() }
            }
        }
    }

    func stop() { task?.cancel() }
}

import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// The full-screen client: its state, the update that changes it, the
/// runner that performs effects, and the frame drawn from the state.
/// Tests drive it with keys and read the grid.
@MainActor
public final class ChatApp {

    let L: Localizer
    let runner: EffectRunner
    var state = AppState()
    var options = RenderOptions()
    /// The time on screen; tests set a fixed clock.
    public var clock: () -> Date = { Date() }
    public var onRedraw: (() -> Void)?
    /// Called when something starts counting seconds on screen (a flash view,
    /// a recording): the run loop then ticks every second again.
    public var onSecondTicksNeeded: (() -> Void)?
    /// What the terminal said it draws pictures with (`TerminalGraphics`).
    public var graphicsDetector = TerminalGraphics.Detector()
    /// Told when the terminal answers.
    public var onGraphics: ((TerminalGraphics.Detector) -> Void)?
    /// Called when something other than a key makes the app quit.
    public var onQuit: (() -> Void)?
    /// The terminal's size now (the runner sets it); before the next frame
    /// it may differ from the last one drawn, e.g. right after a resize.
    public var terminalSize: (() -> (width: Int, height: Int))?
    public var bellEnabled = true
    /// Terminal bell / title hooks (the real terminal sets these).
    public var ring: (() -> Void)?
    public var setTitle: ((String) -> Void)?
    /// Desktop notifications (the real terminal sets this; nil: none).
    public var notify: ((DesktopNotification) -> Void)?
    /// Puts text on the system clipboard; says how (nil: it could not).
    /// The real terminal sets this; it may block (a clipboard program), so
    /// it is called away from the key loop.
    public var copy: (@Sendable (String) -> String?)?
    /// Hands the draft to an editor with the terminal and returns what it
    /// saved (nil: unchanged). The real terminal sets this.
    public var compose: (@Sendable (String) async -> String?)?
    private var redrawPending = false
    private var settling: Task<Void, Never>?
    /// How long a frame for what no key did waits for the updates after it
    /// (`redrawSoon`); tests hold it to see what one frame gathers.
    public var settle: @Sendable () async -> Void = { try? await Task.sleep(for: .milliseconds(10)) }
    private var lastTickMinute = 0

    public init(session: Session, localizer: Localizer = .current) {
        self.L = localizer
        self.runner = EffectRunner(session: session, localizer: localizer)
        state.myName = session.credentials.username
        state.myImUid = session.credentials.imUid
        state.people.myUid = session.credentials.uid
        state.allMentionLabel = L.string("mention.all")
        runner.dispatch = { [weak self] event in await self?.dispatch(event) }
        runner.post = { [weak self] event in self?.post(event) }
        runner.ring = { [weak self] in if self?.bellEnabled == true { self?.ring?() } }
        runner.setTitle = { [weak self] title in self?.setTitle?(title) }
        runner.notify = { [weak self] n in self?.notify?(n) }
        runner.copy = { [weak self] in self?.copy }
        runner.compose = { [weak self] in self?.compose }
        runner.inputText = { [weak self] in self?.state.draft ?? "" }
        runner.openChat = { [weak self] in self?.state.chat }
        session.sync.observe { [weak self] update in
            Task { @MainActor in self?.post(.sync(update)) }
        }
    }

    // MARK: - Settings

    /// Key bindings (defaults, overridden by keys.json).
    public var keyMap: KeyMap {
        get { state.keyMap }
        set { state.keyMap = newValue }
    }
    /// `NO_COLOR`: draw without colours.
    public var monochrome: Bool {
        get { options.monochrome }
        set { options.monochrome = newValue }
    }
    /// `COLORTERM=truecolor`: pictures in 24-bit colour.
    public var trueColor: Bool {
        get { options.trueColor }
        set { options.trueColor = newValue }
    }
    /// `config.json`: the theme; the runner reads `mouse` and `hyperlinks`.
    public var config = ClientConfig() {
        didSet { options.palette = config.palette }
    }
    /// Decodes pictures that came over the network (the runner sets the
    /// helper process; tests decode in-process).
    public var pictureDecoder: PictureDecoder {
        get { runner.pictureDecoder }
        set { runner.pictureDecoder = newValue }
    }
    /// Where Enter and `o` save received files.
    public var downloadsDirectory: URL {
        get { runner.downloadsDirectory }
        set { runner.downloadsDirectory = newValue }
    }

    // MARK: - What tests and the run loop read

    public var list: ListState { state.list }
    public var chat: ChatState? { state.chat }
    public var focus: PaneFocus { state.focus }
    public var wantsQuit: Bool { state.wantsQuit }
    /// The server ended the login (another device signed this one out).
    public var signedOut: Bool { state.signedOut }
    var selectedMessage: ChatMessage? { state.selectedMessage }
    var mode: AppState.Mode { state.mode }
    var input: InputLine { state.input }
    /// The server's part of opening the current chat (tests await it).
    var appearing: Task<Void, Never>? { runner.appearing }
    var visibleConversations: [Conversation] { state.visibleConversations }
    var bubbles: [ChatMessage] { state.bubbles }
    var thumbnails: [String: AppState.Thumbnail] { state.thumbnails }
    var thumbnailRetry: Duration {
        get { runner.thumbnailRetry }
        set { runner.thumbnailRetry = newValue }
    }
    /// The message pane's scroll as last drawn, and how far it can go.
    var scroll: Int { MessageListWidget.layout(state, in: ScreenLayout(state).messages, L).scroll }
    var maxScroll: Int { MessageListWidget.layout(state, in: ScreenLayout(state).messages, L).maxScroll }
    func syncUpdate(_ update: SyncUpdate) { post(.sync(update)) }
    /// An event of the open chat, as its effects or the store would send it.
    func chatEvent(_ event: ChatEvent) async {
        if let ref = state.chat?.ref { await dispatch(.chat(event, ref)) }
    }

    // MARK: - Running

    /// The store's list, drawn before anything else (no network).
    public func loadListFromStore() {
        if let list = runner.listEffects.read() { post(.list(.stored(list))) }
    }

    public func start() async {
        await dispatch(.list(.appear))
        // Whom I blocked (their group messages fold) and friends as stored:
        // beside the start, not in its way.
        let runner = self.runner
        Task { await runner.run([.people(.loadStored)]) }
        setTitle?(state.titleText)
        redraw()
    }

    /// Applies an event and performs its effects (their answers come back
    /// through here); returns when all of them are done. `drawNow`: a key's
    /// answer, drawn at once rather than after `settle`.
    func dispatch(_ event: Event, drawNow: Bool = false) async {
        let effects = apply(event)
        await runner.run(effects)
        if drawNow { redraw() } else { redrawSoon() }
    }

    /// Applies an event from a callback; its effects run beside.
    func post(_ event: Event) {
        let effects = apply(event)
        if !effects.isEmpty { Task { await runner.run(effects) } }
        redrawSoon()
    }

    private func apply(_ event: Event) -> [Effect] {
        state.now = clock()
        if let size = terminalSize?() { state.size = AppState.Size(width: size.width, height: size.height) }
        let counted = state.needsSecondTicks
        let quitting = state.wantsQuit
        let effects = Update.apply(event, to: &state, L)
        if state.needsSecondTicks && !counted { onSecondTicksNeeded?() }
        // A key's quit ends the key loop itself; any other (the login
        // ended) must end it from outside.
        if state.wantsQuit, !quitting {
            if case .key = event {} else { onQuit?() }
        }
        return effects
    }

    public func handle(_ key: Key) async {
        // The terminal answering `TerminalGraphics.query`: how to draw pictures.
        if case .reply(.background(let r, let g, let b)) = key {
            config.adopt(background: r, g, b)
            redraw()
            return
        }
        if case .reply(let reply) = key {
            graphicsDetector.hear(reply)
            onGraphics?(graphicsDetector)
            redraw()
            return
        }
        // A double click is told by the time between clicks.
        if case .mouse = key { state.now = clock() }
        await dispatch(.key(key), drawNow: true)
    }

    /// Leaves the rooms I am in (on the way out).
    public func leaveRooms() async {
        let ids = state.rooms.map(\.info.roomId)
        state.rooms = []
        await runner.leaveRooms(ids)
    }

    /// A transient message on the status line.
    public func showStatus(_ text: String) { post(.status(text)) }

    /// The client is quitting: the open chat keeps what was typed as its draft.
    public func willQuit() { runner.quit(draft: state.draft) }

    /// The frame for a terminal of this size.
    public func frame(width: Int, height: Int) -> Grid {
        state.size = AppState.Size(width: width, height: height)
        state.now = clock()
        return Screen.render(state, L, options)
    }

    /// Draws the first frame before the caller goes on: `redraw()` leaves it
    /// to a task that ran only after the start had begun its networking
    /// (1–12 ms of the first frame's 13–28 in ten starts, its whole spread).
    public func drawFirstFrame() {
        onRedraw?()
    }

    /// Asks for a frame now (a key's answer, the clock).
    /// Requests made while one is pending share it.
    func redraw() {
        settling?.cancel()
        settling = nil
        guard !redrawPending else { return }
        redrawPending = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            self.redrawPending = false
            self.onRedraw?()
        }
    }

    /// Asks for a frame after `settle`, for what no key did: one pull's
    /// answer reaches the app as several updates a few milliseconds apart
    /// (the list, the open chat, their effects' answers), and each drew a
    /// whole frame; now they share one. A key meanwhile draws at once.
    func redrawSoon() {
        guard settling == nil, !redrawPending else { return }
        let settle = self.settle
        settling = Task { @MainActor [weak self] in
            await settle()
            guard let self, !Task.isCancelled else { return }
            self.settling = nil
            self.redraw()
        }
    }

    // MARK: - Time

    /// Whether something on screen counts seconds (a flash view's countdown,
    /// a recording's clock, someone's typing mark).
    public var needsSecondTicks: Bool { state.needsSecondTicks }

    /// How long the run loop may sleep before the next `tick()`: a second
    /// while something counts seconds, otherwise until just after the next
    /// minute (the time labels' resolution), so an idle client wakes once a
    /// minute instead of every second.
    public func nextTickDelay(now: Date? = nil) -> Duration {
        if needsSecondTicks { return .seconds(1) }
        let intoMinute = (now ?? clock()).timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        return .milliseconds(Int((60 - intoMinute) * 1000) + 50)
    }

    /// Called by the run loop: a flash view ends after 10 seconds. Returns
    /// whether the screen needs a redraw for the time alone — a countdown
    /// on screen, or a new minute (time labels, 昨天 at midnight).
    public func tick() async -> Bool {
        let typing = state.live
        await dispatch(.tick)
        if state.mode.countsSeconds || state.live != typing { return true }
        let minute = Int(state.now.timeIntervalSince1970 / 60)
        defer { lastTickMinute = minute }
        return minute != lastTickMinute
    }
}

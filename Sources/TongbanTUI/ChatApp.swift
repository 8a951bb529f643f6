import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// The full-screen client's state and key handling. It renders the view
/// models (never the network directly); `frame(width:height:)` is a pure
/// function of this state, so tests drive it with keys and read the grid.
@MainActor
public final class ChatApp {
    public enum Focus: Equatable, Sendable { case list, messages, input }

    /// Overlays that take the keyboard.
    enum Mode {
        case normal
        case confirm(String, @MainActor () async -> Void)
        case listSearch(String)
        case messageSearch(String, [MessageRecord], Int)
        case newChat(String, [UserBasicInfo], Int)
        case signals([SignalInboxItem], Int)
        case settings
        case help
        /// `/rec`: a recorder is running into a private file.
        case recording(Process, URL)
        /// A flash image on screen: its pixels live only in memory.
        case flash(ChatMessage, Date, RGBImage)
        /// Enter on an image: picture `index` of the message, full screen.
        case picture(ChatMessage, Int, RGBImage)
    }

    let session: Session
    let L: Localizer
    public let list: ConversationListViewModel
    public private(set) var chat: ConversationViewModel?
    public private(set) var focus: Focus = .list
    var mode: Mode = .normal {
        didSet { if Self.countsSeconds(mode) && !Self.countsSeconds(oldValue) { onSecondTicksNeeded?() } }
    }
    /// Called when something starts counting seconds on screen (a flash view,
    /// a recording): the run loop then ticks every second again.
    public var onSecondTicksNeeded: (() -> Void)?
    var listIndex = 0
    /// The selected message, by id: a message arriving (or history loading)
    /// never moves the selection onto a neighbour, so `R` and Enter act on
    /// the message the user picked.
    var selectedId: String?
    /// The selected message's position, counted from the newest (0 = newest)
    /// among bubbles; nil when nothing (or a message no longer shown) is selected.
    var selected: Int? {
        get { selectedId.flatMap { id in bubbles.firstIndex { $0.id == id } } }
        set {
            let list = bubbles
            selectedId = newValue.flatMap { $0 >= 0 && $0 < list.count ? list[$0].id : nil }
        }
    }
    /// Lines scrolled up from the bottom of the message pane.
    var scroll = 0
    var input = InputLine()
    var status: String?
    var connection: ConnectionState = .connecting
    /// The store's disk was full at the last pull (shown until a pull fits).
    var storeFull = false
    /// Whether only one pane fits (narrow terminal); which one shows.
    var narrowShowsMessages = false
    public var onRedraw: (() -> Void)?
    public private(set) var wantsQuit = false
    /// Terminal bell / title hooks (the real terminal sets these).
    public var ring: (() -> Void)?
    public var setTitle: ((String) -> Void)?
    public var bellEnabled = true
    /// Key bindings (defaults, overridden by keys.json).
    public var keyMap = KeyMap()
    /// `NO_COLOR`: draw without colours.
    public var monochrome = false
    /// `COLORTERM=truecolor`: pictures in 24-bit colour instead of the
    /// 256-colour palette.
    public var trueColor = false
    private var lastUnread = 0
    var thumbnails: [String: RGBImage?] = [:]
    /// Thumbnails being decoded; their rows are kept free meanwhile.
    var thumbnailsPending: Set<String> = []
    var thumbnailRetryAt: [String: ContinuousClock.Instant] = [:]
    /// Decodes pictures that came over the network (the runner sets the
    /// helper process; tests decode in-process).
    public var pictureDecoder: PictureDecoder = .inProcess
    /// Where Enter and `o` save received files.
    public var downloadsDirectory: URL = Downloads.directory()
    var playing: Process?
    var playingId: String?
    var lastFrameWidth = 80
    var lastFrameHeight = 24
    /// The terminal's size now (the runner sets it); before the next frame
    /// it may differ from the last one drawn, e.g. right after a resize.
    public var terminalSize: (() -> (width: Int, height: Int))?

    public init(session: Session, localizer: Localizer = .current) {
        self.session = session
        self.L = localizer
        self.list = ConversationListViewModel(session: session, localizer: localizer)
        list.onChange = { [weak self] in self?.listChanged() }
        session.sync.observe { [weak self] update in
            Task { @MainActor in self?.syncUpdate(update) }
        }
    }

    public func start() async {
        await list.onAppear()
        lastUnread = list.totalUnread
        setTitle?(titleText)
        redraw()
    }

    /// Asks for a frame. Requests made while one is pending share it: a
    /// burst of sync updates draws once, right after the burst's handlers.
    func redraw() {
        guard !redrawPending else { return }
        redrawPending = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            self.redrawPending = false
            self.onRedraw?()
        }
    }
    private var redrawPending = false

    /// A transient message on the status line.
    public func showStatus(_ text: String) {
        status = text
        redraw()
    }

    var titleText: String { list.totalUnread > 0 ? "(\(list.totalUnread)) Tongban" : "Tongban" }

    func listChanged() {
        let unread = list.totalUnread
        if unread > lastUnread, bellEnabled { ring?() }
        if unread != lastUnread { setTitle?(titleText) }
        lastUnread = unread
        listIndex = min(listIndex, max(0, visibleConversations.count - 1))
        redraw()
    }

    func syncUpdate(_ update: SyncUpdate) {
        if case .connection(let s) = update {
            connection = s
            if s == .online { Task { await session.repository.wake() } }
            redraw()
        }
        if case .storage(let full) = update {
            storeFull = full
            redraw()
        }
    }

    var visibleConversations: [Conversation] {
        if case .listSearch(let q) = mode { return list.filtered(by: q) }
        return list.conversations
    }

    // MARK: - Keys

    public func handle(_ key: Key) async {
        status = nil
        // Raw mode: Ctrl-C arrives as a key, and means quit everywhere.
        if key == .ctrl("c") {
            // A recording in progress is dropped, not left running.
            if case .recording(let p, let file) = mode { await finishRecording(p, file, send: false) }
            mode = .normal
            wantsQuit = true
            return
        }
        if key == .resize {
            // A resize is not a key: it answers no prompt and closes no view;
            // a full-screen picture is fitted to the new size.
            if case .picture(let m, let index, _) = mode { await showPicture(m, index: index) }
            redraw(); return
        }
        switch mode {
        case .normal: break
        case .confirm(_, let action):
            mode = .normal
            if key == .char("y") || key == .char("Y") { await action() }
            list.loadFromStore()
            redraw(); return
        case .help:
            mode = .normal; redraw(); return
        case .recording(let p, let file):
            if key == .enter { await finishRecording(p, file, send: true) }
            else if key == .escape || key == .ctrl("c") { await finishRecording(p, file, send: false) }
            redraw(); return
        case .flash(let m, _, _):
            await endFlash(m); return
        case .picture(let m, let index, _):
            await handlePicture(key, m, index); redraw(); return
        case .listSearch(let q):
            await handleListSearch(key, q); redraw(); return
        case .messageSearch(let q, let hits, let i):
            await handleMessageSearch(key, q, hits, i); redraw(); return
        case .newChat(let q, let users, let i):
            await handleNewChat(key, q, users, i); redraw(); return
        case .signals(let items, let i):
            await handleSignals(key, items, i); redraw(); return
        case .settings:
            if key == .char("c") || key == .enter {
                mode = .confirm(L.string("ui.confirm.clear")) { [weak self] in await self?.chat?.clearHistory() }
            } else { mode = .normal }
            redraw(); return
        }
        if key == .tab, focus == .input, let completed = PathCompletion.complete(input.text) {
            input = InputLine(text: completed.text)
            if completed.choices.count > 1 { status = completed.choices.prefix(8).joined(separator: "  ") }
            redraw(); return
        }
        if key == .tab || key == .backTab { cycleFocus(forward: key == .tab); redraw(); return }
        switch focus {
        case .list: await handleList(keyMap.canonical(key, in: .list))
        case .messages: await handleMessages(keyMap.canonical(key, in: .messages)); list.loadFromStore()
        case .input: await handleInput(key); if key == .enter { list.loadFromStore() }
        }
        if let e = chat?.errorMessage { status = e; chat?.errorMessage = nil }
        if let e = list.errorMessage { status = e; list.errorMessage = nil }
        redraw()
    }

    func cycleFocus(forward: Bool) {
        let order: [Focus] = chat == nil ? [.list] : [.list, .messages, .input]
        guard let i = order.firstIndex(of: focus) else { focus = .list; return }
        focus = order[(i + (forward ? 1 : order.count - 1)) % order.count]
        narrowShowsMessages = focus != .list
    }

    func handleList(_ key: Key) async {
        let convs = visibleConversations
        switch key {
        case .char("j"), .down: listIndex = min(listIndex + 1, max(0, convs.count - 1))
        case .char("k"), .up: listIndex = max(0, listIndex - 1)
        case .char("g"), .home: listIndex = 0
        case .char("G"), .end: listIndex = max(0, convs.count - 1)
        case .enter: if listIndex < convs.count { await open(convs[listIndex]) }
        case .char("p"):
            if listIndex < convs.count { await list.pinConversation(id: convs[listIndex].id, isPinned: !convs[listIndex].isPinned) }
        case .char("d"):
            if listIndex < convs.count {
                let c = convs[listIndex]
                mode = .confirm(L.string("ui.confirm.delete", ["name": c.nickname])) { [weak self] in
                    await self?.list.deleteConversation(id: c.id)
                    if self?.chat?.conversation.id == c.id { self?.closeChat() }
                }
            }
        case .char("n"): mode = .newChat("", [], 0)
        case .char("s"): mode = .signals((try? await session.api.signalInbox()) ?? [], 0)
        case .char("r"): await list.refresh()
        case .char("/"): mode = .listSearch("")
        case .char("?"): mode = .help
        case .char("q"): wantsQuit = true
        case .escape: if chat != nil { focus = .messages; narrowShowsMessages = true }
        default: break
        }
    }

    public func open(_ c: Conversation) async {
        if let chat { chat.onDisappear(draft: input.text) }
        let vm = ConversationViewModel(conversation: c, session: session, localizer: L)
        vm.onChange = { [weak self] in self?.redraw() }
        chat = vm
        input = InputLine(text: c.draftText ?? "")
        selected = nil
        scroll = 0
        focus = .input
        narrowShowsMessages = true
        vm.showLocal()
        list.loadFromStore()
        redraw()
        // The server's part runs beside the keys: with a slow or dead server
        // the next key used to wait for it (Escape right after opening a
        // chat took 2 s while the HTTP client retried a dead server).
        appearing = Task { @MainActor [weak self] in
            await vm.completeAppearance()
            guard let self, self.chat === vm else { return }
            self.list.loadFromStore()
            self.redraw()
        }
    }

    /// The server's part of opening the current chat (tests await it).
    var appearing: Task<Void, Never>?

    func closeChat() {
        chat?.onDisappear(draft: input.text)
        chat = nil
        input = InputLine()
        focus = .list
        narrowShowsMessages = false
    }

    /// Bubbles newest first (no time markers).
    var bubbles: [ChatMessage] { chat?.messages.filter { $0.type != .time } ?? [] }

    func handleMessages(_ key: Key) async {
        guard let chat else { focus = .list; return }
        let count = bubbles.count
        switch key {
        case .char("k"), .up:
            selected = min((selected ?? -1) + 1, max(0, count - 1))
            if selected == count - 1, chat.hasMoreHistory { await chat.loadMoreHistory() }
        case .char("j"), .down:
            if let s = selected { selected = s > 0 ? s - 1 : nil }
            if selected == nil { chat.isAtBottom = true; scroll = 0 }
        case .pageUp:
            scroll += 10
            chat.isAtBottom = false
            if scroll >= maxScroll, chat.hasMoreHistory { await chat.loadMoreHistory() }
        case .pageDown:
            scroll = max(0, scroll - 10)
            if scroll == 0 { chat.isAtBottom = true }
        case .char("G"), .end: scroll = 0; selected = nil; chat.isAtBottom = true
        case .char("R"):
            guard let m = selectedMessage else { return }
            guard m.isMe else { status = L.string("ui.notMine"); return }
            mode = .confirm(L.string("ui.confirm.revoke")) { [weak self] in
                await self?.chat?.revokeMessage(id: m.id)
                if let e = self?.chat?.errorMessage { self?.status = e; self?.chat?.errorMessage = nil }
            }
        case .enter:
            guard let m = selectedMessage else { return }
            if m.status == .failed { await chat.retry(messageId: m.id) }
            else if m.type == .flashImage, !m.isMe, !m.isDestroyed {
                mode = .confirm(L.string("ui.confirm.flash")) { [weak self] in await self?.showFlash(m) }
            } else if m.type == .voice {
                await play(m)
            } else if (m.type == .image || m.type == .multiImage), !m.isRecalled {
                await showPicture(m, index: 0)
            } else if m.type == .file {
                await saveFile(m)
            }
        case .char("o"):
            if let m = selectedMessage { await openExternally(m) }
        case .char("i"): focus = .input
        case .char(","): mode = .settings
        case .char("/"): mode = .messageSearch("", [], 0)
        case .char("?"): mode = .help
        case .escape: focus = .list; narrowShowsMessages = false
        case .char("q"): wantsQuit = true
        default: break
        }
    }

    var selectedMessage: ChatMessage? {
        guard let s = selected, s < bubbles.count else { return nil }
        return bubbles[s]
    }

    /// Fetches the flash image into memory (never to disk) and shows it.
    func showFlash(_ m: ChatMessage) async {
        guard let key = m.objectKey else { return }
        do {
            let bytes = try await session.media.fetchUncached(objectKey: key)
            let image = try await pictureDecoder.decode(bytes, max(8, lastSize.width), max(8, (lastSize.height - 3) * 2))
            mode = .flash(m, Date(), image)
            // Destroyed the moment it is shown (seed §flash): quitting, a
            // crash or a lost connection during the 10 seconds cannot keep
            // it viewable. The bytes on screen live only in this mode.
            await chat?.markFlashViewed(id: m.id)
        } catch {
            status = describePicture(error)
        }
        redraw()
    }

    /// The image keys of a message with the URL each was sent with.
    static func pictures(of m: ChatMessage) -> [(key: String, url: String)] {
        if m.type == .multiImage {
            let keys = m.multiObjectKeys ?? []
            let urls = m.multiImageUrls ?? []
            return keys.enumerated().map { (key: $0.element, url: $0.offset < urls.count ? urls[$0.offset] : "") }
        }
        guard m.type == .image, let key = m.objectKey else { return [] }
        return [(key: key, url: m.imageUrl ?? "")]
    }

    /// Shows picture `index` of an image or multi-image message full screen,
    /// from the cache, fetching it first when it is not there.
    func showPicture(_ m: ChatMessage, index: Int) async {
        let all = Self.pictures(of: m)
        guard index >= 0, index < all.count else { return }
        guard let file = await localFile(key: all[index].key, url: all[index].url, expireAt: m.urlExpireAt ?? 0) else { return }
        do {
            let data = try Data(contentsOf: file)
            let size = terminalSize?() ?? lastSize
            let image = try await pictureDecoder.decode(data, max(8, size.width), max(8, (size.height - 3) * 2))
            mode = .picture(m, index, image)
        } catch {
            status = describePicture(error)
        }
        redraw()
    }

    /// The full-screen picture: ←/→ (h/l) walk a multi-image message, `o`
    /// opens the picture in the system viewer, any other key closes it.
    func handlePicture(_ key: Key, _ m: ChatMessage, _ index: Int) async {
        switch key {
        case .left, .char("h"):
            if index > 0 { await showPicture(m, index: index - 1) }
        case .right, .char("l"):
            if index + 1 < Self.pictures(of: m).count { await showPicture(m, index: index + 1) }
        case .char("o"):
            let all = Self.pictures(of: m)
            if index < all.count, let file = await localFile(key: all[index].key, url: all[index].url, expireAt: m.urlExpireAt ?? 0) {
                openInViewer(file)
            }
        default:
            mode = .normal
        }
    }

    /// The last size drawn, for sizing full-screen pictures.
    var lastSize: (width: Int, height: Int) { (lastFrameWidth, lastFrameHeight) }

    // MARK: - Media

    /// A picture that could not be shown, in the user's language.
    func describePicture(_ error: any Error) -> String {
        guard let f = error as? ImageCodec.Failure else { return "\(error)" }
        switch f.kind {
        case .unreadable: return L.string("ui.picture.unreadable")
        case .timeout: return L.string("ui.picture.timeout")
        case .unavailable: return L.string("ui.picture.unavailable", ["reason": f.description])
        case .crashed: return L.string("ui.picture.crashed")
        }
    }

    /// The largest thumbnail in a bubble, in pixels (two per cell row).
    static let thumbnailSide = 16

    /// Decoded thumbnails by objectKey (nil: not decodable). A miss starts
    /// the decoding and answers nil; the frame after it shows the picture.
    /// A decoder that timed out or could not start is tried again after
    /// `thumbnailRetry`; a picture that cannot be decoded is not.
    func thumbnail(for key: String) -> RGBImage? {
        if let hit = thumbnails[key] { return hit }
        if let after = thumbnailRetryAt[key], ContinuousClock.now < after { return nil }
        guard !thumbnailsPending.contains(key), let url = session.media.localURL(for: key) else { return nil }
        thumbnailsPending.insert(key)
        let decoder = pictureDecoder
        Task { @MainActor [weak self] in
            let path = url.path
            let data = await Task.detached { FileManager.default.contents(atPath: path) }.value
            var outcome: RGBImage??
            do {
                if let data { outcome = .some(try await decoder.decode(data, Self.thumbnailSide, Self.thumbnailSide)) }
                else { outcome = .some(nil) }
            } catch let e as ImageCodec.Failure where e.transient {
                outcome = nil
            } catch {
                outcome = .some(nil)
            }
            guard let self else { return }
            self.thumbnailsPending.remove(key)
            if let outcome {
                self.thumbnails[key] = outcome
                self.thumbnailRetryAt[key] = nil
            } else {
                self.thumbnailRetryAt[key] = ContinuousClock.now + self.thumbnailRetry
            }
            self.redraw()
        }
        return nil
    }
    /// How long a decoder that timed out or could not start is left alone.
    var thumbnailRetry: Duration = .seconds(5)

    /// The cells a w×h picture's thumbnail takes (shrunk to fit, never
    /// enlarged): a column per pixel, a row per two.
    static func thumbnailCells(width: Int, height: Int) -> (columns: Int, rows: Int) {
        guard width > 0, height > 0 else { return (0, 0) }
        let scale = min(1, Double(thumbnailSide) / Double(width), Double(thumbnailSide) / Double(height))
        let w = max(1, Int((Double(width) * scale).rounded())), h = max(1, Int((Double(height) * scale).rounded()))
        return (w, (h + 1) / 2)
    }

    /// The cached file of a message's media, fetching it first if needed.
    func localFile(_ m: ChatMessage) async -> URL? {
        guard let key = m.objectKey, !m.isFlash else { return nil }
        return await localFile(key: key, url: m.imageUrl ?? "", expireAt: m.urlExpireAt ?? 0)
    }

    /// The cached file of one object key, fetched (re-signed when expired)
    /// first if needed; nil with the reason in the status line.
    func localFile(key: String, url: String, expireAt: Int) async -> URL? {
        if let cached = session.media.localURL(for: key) { return cached }
        do {
            _ = try await session.media.prefetch(url: url, expireAt: expireAt, objectKey: key)
        } catch {
            status = "\(error)"
        }
        return session.media.localURL(for: key)
    }

    /// Enter on a voice message: the first player found, started with an
    /// argument list (never a shell).
    func play(_ m: ChatMessage) async {
        guard let file = await localFile(m) else { return }
        let env = ProcessInfo.processInfo.environment
        let candidates: [(String, [String])] = [
            ("mpv", ["--no-video", "--really-quiet"]), ("ffplay", ["-nodisp", "-autoexit", "-loglevel", "quiet"]),
            ("paplay", []), ("aplay", ["-q"]),
        ]
        let chosen = env["TONGBAN_AUDIO_PLAYER"].map { [($0, [String]())] } ?? candidates
        guard let (exe, args) = chosen.lazy.compactMap({ c in Self.which(c.0).map { ($0, c.1) } }).first else {
            status = L.string("ui.noPlayer")
            return
        }
        playing?.terminate()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args + [file.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        p.terminationHandler = { [weak self] _ in
            Task { @MainActor in
                self?.playingId = nil
                self?.redraw()
            }
        }
        do {
            try p.run()
            playing = p
            playingId = m.id
        } catch {
            status = "\(error)"
        }
    }

    /// `/rec`: records with `TONGBAN_RECORDER` (called with the output file),
    /// else arecord, else ffmpeg; Enter stops and sends, Esc throws it away.
    func startRecording() {
        guard chat != nil else { return }
        let env = ProcessInfo.processInfo.environment
        let candidates: [(String, [String])] = [
            ("arecord", ["-q", "-f", "S16_LE", "-r", "16000", "-c", "1", "-t", "wav"]),
            ("ffmpeg", ["-loglevel", "quiet", "-f", "alsa", "-i", "default", "-ac", "1", "-ar", "16000", "-y"]),
        ]
        let chosen = env["TONGBAN_RECORDER"].map { [($0, [String]())] } ?? candidates
        guard let (exe, args) = chosen.lazy.compactMap({ c in Self.which(c.0).map { ($0, c.1) } }).first else {
            status = L.string("ui.noRecorder")
            return
        }
        do {
            let file = try session.media.pendingUploadFile(Data(), ext: "wav")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = args + [file.path]
            p.standardInput = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            mode = .recording(p, file)
            recordingStarted = Date()
        } catch {
            status = "\(error)"
        }
    }

    func finishRecording(_ p: Process, _ file: URL, send: Bool) async {
        mode = .normal
        if p.isRunning { p.interrupt() }
        // The recorder finishes the WAV header on SIGINT.
        for _ in 0..<50 where p.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        if p.isRunning { p.terminate() }
        guard send else { try? FileManager.default.removeItem(at: file); return }
        do {
            let probe = try MediaProbe.probe(path: file.path)
            guard probe.kind == "chat_audio", (probe.durationSec ?? 0) >= 1 else {
                try? FileManager.default.removeItem(at: file)
                status = L.string("ui.recordTooShort")
                return
            }
            await chat?.sendVoice(path: file.path, contentType: probe.contentType, durationSec: probe.durationSec ?? 1)
        } catch {
            status = "\(error)"
        }
    }

    /// `o`: the picture in the system viewer (`TONGBAN_IMAGE_VIEWER`, else xdg-open).
    func openExternally(_ m: ChatMessage) async {
        if m.type == .file { return await openFile(m) }
        if m.type == .multiImage, let first = Self.pictures(of: m).first,
           let file = await localFile(key: first.key, url: first.url, expireAt: m.urlExpireAt ?? 0) {
            openInViewer(file)
            return
        }
        guard m.type == .image || m.type == .voice, let file = await localFile(m) else { return }
        openInViewer(file)
    }

    /// Starts the image viewer on a cached file, with an argument list.
    func openInViewer(_ file: URL) {
        let viewer = ProcessInfo.processInfo.environment["TONGBAN_IMAGE_VIEWER"] ?? "xdg-open"
        guard let exe = Self.which(viewer) else {
            status = L.string("ui.noViewer", ["name": viewer])
            return
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = [file.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { status = "\(error)" }
    }

    /// The full path of an executable on PATH (or the path itself).
    static func which(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The client is quitting: what was typed and not sent stays as the
    /// open chat's draft (seed: `onDisappear` saves the draft).
    public func willQuit() {
        chat?.onDisappear(draft: input.text)
    }

    /// The flash view closes (a key, or 10 seconds); it was destroyed on
    /// both sides when it opened.
    func endFlash(_ m: ChatMessage) async {
        mode = .normal
        redraw()
    }

    private var lastTickMinute = 0
    /// When the recording on screen started (its clock in the status line).
    var recordingStarted: Date?

    /// Whether something on screen counts seconds (a flash view's countdown,
    /// a recording's clock).
    public var needsSecondTicks: Bool { Self.countsSeconds(mode) }

    static func countsSeconds(_ mode: Mode) -> Bool {
        switch mode {
        case .flash, .recording: return true
        default: return false
        }
    }

    /// How long the run loop may sleep before the next `tick()`: a second
    /// while something counts seconds, otherwise until just after the next
    /// minute (the time labels' resolution), so an idle client wakes once a
    /// minute instead of every second.
    public func nextTickDelay(now: Date = Date()) -> Duration {
        if needsSecondTicks { return .seconds(1) }
        let intoMinute = now.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        return .milliseconds(Int((60 - intoMinute) * 1000) + 50)
    }

    /// Called by the run loop (see `nextTickDelay`): a flash view ends after
    /// 10 seconds. Returns whether the screen needs a redraw for the time
    /// alone — a countdown on screen, or a new minute (time labels, 昨天 at
    /// midnight); otherwise an idle client draws nothing.
    public func tick() async -> Bool {
        if case .flash(let m, let since, _) = mode, Date().timeIntervalSince(since) >= 10 { await endFlash(m) }
        switch mode {
        case .flash, .recording: return true
        default: break
        }
        let minute = Int(Date().timeIntervalSince1970 / 60)
        defer { lastTickMinute = minute }
        return minute != lastTickMinute
    }

    func handleInput(_ key: Key) async {
        switch key {
        case .enter:
            let text = input.text
            input = InputLine()
            await submit(text)
        case .altEnter, .ctrl("j"): input.insert("\n")
        case .escape:
            focus = chat == nil ? .list : .messages
            try? session.store.setDraft(id: chat?.conversation.id ?? "", text: input.text)
            list.loadFromStore()
        case .paste(let s): input.insert(s)
        default: input.apply(key)
        }
    }

    /// Text, or a slash command that sends media.
    func submit(_ raw: String) async {
        guard let chat else { return }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if parts == ["/rec"] {
            startRecording()
            return
        }
        if parts.first == "/file" {
            // The rest of the line is one path: file names may hold spaces.
            let path = (String(text.dropFirst("/file".count)).trimmingCharacters(in: .whitespaces) as NSString).expandingTildeInPath
            guard !path.isEmpty else { status = "/file PATH"; return }
            await sendFile(path)
        } else if let cmd = parts.first, ["/image", "/flash", "/multi", "/voice"].contains(cmd) {
            let paths = parts.dropFirst().map { ($0 as NSString).expandingTildeInPath }
            guard !paths.isEmpty else { status = "\(cmd) PATH"; return }
            do {
                switch cmd {
                case "/voice":
                    let probe = try MediaProbe.probe(path: paths[0])
                    guard probe.kind == "chat_audio" else { throw MediaProbe.Failure.unsupported(paths[0]) }
                    await chat.sendVoice(path: paths[0], contentType: probe.contentType, durationSec: probe.durationSec ?? 0)
                case "/multi":
                    var files: [(path: String, contentType: String)] = []
                    for path in paths.prefix(9) {
                        let prepared = try ImageCodec.prepareFile(path: path)
                        let file = try session.media.pendingUploadFile(prepared.data, ext: Self.ext(prepared.contentType))
                        files.append((file.path, prepared.contentType))
                    }
                    await chat.sendMultiImage(paths: files)
                default:
                    let prepared = try ImageCodec.prepareFile(path: paths[0])
                    let file = try session.media.pendingUploadFile(prepared.data, ext: Self.ext(prepared.contentType))
                    await chat.sendImage(path: file.path, contentType: prepared.contentType, width: Double(prepared.width),
                                         height: Double(prepared.height), isFlash: cmd == "/flash")
                }
            } catch {
                status = "\(error)"
            }
        } else if !(await chat.sendText(raw)) {
            input = InputLine(text: raw)  // not queued (a full disk): the text stays to send again
            return
        }
        try? session.store.setDraft(id: chat.conversation.id, text: nil)
        scroll = 0
        selected = nil
    }

    func handleListSearch(_ key: Key, _ q: String) async {
        switch key {
        case .escape: mode = .normal
        case .enter:
            let convs = list.filtered(by: q)
            mode = .normal
            if listIndex < convs.count { await open(convs[listIndex]) }
        case .backspace: mode = .listSearch(String(q.dropLast())); listIndex = 0
        case .down: listIndex = min(listIndex + 1, max(0, list.filtered(by: q).count - 1))
        case .up: listIndex = max(0, listIndex - 1)
        case .char(let c): mode = .listSearch(q + String(c)); listIndex = 0
        case .paste(let s): mode = .listSearch(q + s); listIndex = 0
        default: break
        }
    }

    func handleMessageSearch(_ key: Key, _ q: String, _ hits: [MessageRecord], _ i: Int) async {
        func search(_ q: String) -> [MessageRecord] {
            (try? session.store.search(q, conversationId: chat?.conversation.id, limit: 50)) ?? []
        }
        switch key {
        case .escape: mode = .normal
        case .enter:
            mode = .normal
            guard i < hits.count, let seq = hits[i].seq, let chat else { return }
            chat.reveal(seq: seq)
            if let idx = bubbles.firstIndex(where: { $0.id == hits[i].clientMsgID }) { selected = idx }
            focus = .messages
        case .down: mode = .messageSearch(q, hits, min(i + 1, max(0, hits.count - 1)))
        case .up: mode = .messageSearch(q, hits, max(0, i - 1))
        case .backspace:
            let nq = String(q.dropLast())
            mode = .messageSearch(nq, search(nq), 0)
        case .char(let c):
            let nq = q + String(c)
            mode = .messageSearch(nq, search(nq), 0)
        case .paste(let s):
            let nq = q + s
            mode = .messageSearch(nq, search(nq), 0)
        default: break
        }
    }

    func handleNewChat(_ key: Key, _ q: String, _ users: [UserBasicInfo], _ i: Int) async {
        switch key {
        case .escape: mode = .normal
        case .enter:
            if i < users.count {
                mode = .normal
                if let c = await list.startConversation(with: users[i]) { await open(c) }
            } else {
                mode = .newChat(q, await list.searchUsers(q), 0)
            }
        case .down: mode = .newChat(q, users, min(i + 1, max(0, users.count - 1)))
        case .up: mode = .newChat(q, users, max(0, i - 1))
        case .backspace: mode = .newChat(String(q.dropLast()), [], 0)
        case .char(let c): mode = .newChat(q + String(c), [], 0)
        default: break
        }
    }

    func handleSignals(_ key: Key, _ items: [SignalInboxItem], _ i: Int) async {
        switch key {
        case .escape, .char("q"): mode = .normal
        case .down, .char("j"): mode = .signals(items, min(i + 1, max(0, items.count - 1)))
        case .up, .char("k"): mode = .signals(items, max(0, i - 1))
        case .enter:
            mode = .normal
            guard i < items.count else { return }
            let item = items[i]
            guard let c = await list.startConversation(with: item.from) else { return }
            try? session.store.setSignalContext(id: c.id, signalId: item.signalId, receiveId: item.receiveId,
                                                reply: item.replyContent, content: item.signalContent)
            if let fresh = try? session.store.conversation(id: c.id, localizer: L) { await open(fresh) }
        default: break
        }
    }

    static func ext(_ contentType: String) -> String {
        ["image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"][contentType] ?? "bin"
    }

    /// How far the message pane can scroll (set while drawing).
    var maxScroll = 0
}

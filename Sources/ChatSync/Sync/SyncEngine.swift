import ChatCore
import ChatStore
import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// What the sync loop tells the view models.
public enum SyncUpdate: Sendable {
    case applied(AppliedChanges)
    case connection(ConnectionState)
    case presence(userId: String, online: Bool)
    /// The server forgot our cursor: conversations were reloaded; gaps are
    /// filled when a conversation is opened.
    case resynced
    /// The local store could not take what was pulled (`full`: the disk is
    /// full). Nothing is lost: the cursor did not move, so the same events
    /// are pulled again, and `full: false` follows the first pull that fits.
    case storage(full: Bool)
    /// The login ended (a 401, or the socket closed with 4001: signed out
    /// from another device, or the token expired). The engine has stopped;
    /// the store keeps everything for the next login (seed 001 §3.4).
    case signedOut
    /// A room's push (PROTOCOL.md v3 "Rooms"): rooms are in no sync log, so
    /// their messages, updates and info come whole, only over the socket.
    case room(RoomPush)
    /// v4: someone is typing in a conversation, for `ttlMs` from now.
    case typing(conversationId: String, userId: String, ttlMs: Int)
    /// v4: reads passed some of my messages in a group.
    case readChanged(conversationId: String)
}

/// What a room's push frame carries.
public enum RoomPush: Sendable, Hashable {
    case message(WireMessage)
    case update(WireMessage)
    case info(RoomInfo)
}

/// Push + poll (seed 002 §2.2): a WebSocket says when to pull, a timer
/// pulls anyway (every `pollOnline` while the socket is up, every
/// `pollOffline` while it is down), reconnects back off exponentially with
/// jitter, and every pulled batch is applied in one transaction.
public final class SyncEngine: Sendable {
    let api: any ChatAPI
    let store: ChatStore
    let timing: Timing
    let logger: Logger
    private let observers = Mutex<[Int: @Sendable (SyncUpdate) -> Void]>([:])
    private let nextObserver = Mutex(0)
    private let stateBox = Mutex<ConnectionState>(.connecting)
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Serialises pulls: one at a time, a request during a pull runs once after.
    private let pullGate = PullGate()
    /// Whether a notice-driven pull is already scheduled, and when the last
    /// one started.
    let noticeState = Mutex<(scheduled: Bool, lastStart: ContinuousClock.Instant?)>((false, nil))
    /// Pulls started so far and when the last one started (diagnostics and tests).
    let pullsStarted = Mutex<(count: Int, last: ContinuousClock.Instant?)>((0, nil))

    /// Peers whose profile was asked for and not given (an unknown uid is
    /// left out of the answer): asked once per run, not on every pull.
    private let profilesAsked = Mutex<Set<Int>>([])
    /// Whether the last pull found the store's disk full.
    private let storeFull = Mutex(false)
    /// Set once the server said the login is over.
    private let endedLogin = Mutex(false)

    public var isSignedOut: Bool { endedLogin.withLock { $0 } }

    /// Where opened secret blobs are kept (the session's media cache).
    let mediaCache = Mutex<MediaCacheService?>(nil)
    /// Whether this run made sure the server has this device's keys.
    let keysChecked = Mutex(false)
    public func attach(media: MediaCacheService) { mediaCache.withLock { $0 = media } }

    /// Where the push socket connects (default: the API's `/chat/ws`).
    let pushURL: String?
    /// This device's sign-in: which pulled `new_login` events are news.
    let ownLogin: OwnLogin

    public init(api: any ChatAPI, store: ChatStore, timing: Timing = Timing(), pushURL: String? = nil,
                ownLogin: OwnLogin = OwnLogin(), logger: Logger = Logger(label: "tongban.sync")) {
        self.api = api; self.store = store; self.timing = timing; self.pushURL = pushURL; self.ownLogin = ownLogin
        self.logger = logger
    }

    /// The socket to connect, nil when neither this engine nor the API has
    /// one: then polling alone finds new events.
    var pushTarget: String? { pushURL ?? api.pushURL }

    public var state: ConnectionState { stateBox.withLock { $0 } }

    @discardableResult
    public func observe(_ handler: @escaping @Sendable (SyncUpdate) -> Void) -> Int {
        let id = nextObserver.withLock { $0 += 1; return $0 }
        observers.withLock { $0[id] = handler }
        return id
    }

    public func removeObserver(_ id: Int) { _ = observers.withLock { $0.removeValue(forKey: id) } }

    func emit(_ update: SyncUpdate) {
        for h in observers.withLock({ Array($0.values) }) { h(update) }
    }

    func setState(_ s: ConnectionState) {
        let changed = stateBox.withLock { old -> Bool in
            defer { old = s }
            return old != s
        }
        if changed { emit(.connection(s)) }
    }

    /// Starts the socket and the poll timer.
    public func start() {
        let push = Task { await self.pushLoop() }
        let poll = Task { await self.pollLoop() }
        tasks.withLock { $0 += [push, poll] }
    }

    public func stop() {
        for t in tasks.withLock({ t in defer { t = [] }; return t }) { t.cancel() }
    }

    // MARK: - Pull

    /// Pulls until the server has nothing more; returns what changed.
    @discardableResult
    public func pull() async throws -> AppliedChanges {
        do {
            return try await pullGate.run { try await self.pullOnce() }
        } catch let e as APIError where e.code == .unauthorized {
            loginEnded()
            throw e
        }
    }

    /// The server no longer takes our token: say so once and stop.
    func loginEnded() {
        guard !endedLogin.withLock({ ended in defer { ended = true }; return ended }) else { return }
        logger.notice("the server ended this login")
        emit(.signedOut)
        stop()
    }

    /// One pull, page by page from the stored cursor: each page's events are
    /// applied and the cursor saved in one store transaction (so a crash
    /// between pages re-pulls, never skips), and each page that changed
    /// something is announced at once (`.applied`), so a long catch-up shows
    /// as it lands. An expired cursor reloads the conversation list and
    /// starts over at 0; a full disk stops here and leaves the events on the
    /// server. Profiles and members of what changed are fetched at the end.
    func pullOnce() async throws -> AppliedChanges {
        pullsStarted.withLock { $0 = ($0.count + 1, .now) }
        var total = AppliedChanges()
        var cursor = try store.syncCursor()
        while !Task.isCancelled {
            let page: SyncResponse
            do {
                page = try await api.sync(since: cursor)
            } catch let e as APIError where e.code == .cursorExpired {
                try await resync()
                cursor = 0
                continue
            }
            if page.skippedEvents > 0 { logger.notice("skipped \(page.skippedEvents) sync events of unknown kinds") }
            var changes: AppliedChanges
            do {
                changes = try store.apply(events: page.events, cursor: max(page.cursor, cursor))
            } catch where StoreError.isDiskFull(error) {
                if !storeFull.withLock({ full in defer { full = true }; return full }) {
                    logger.error("the local store's disk is full; the pulled events wait on the server: \(error)")
                    emit(.storage(full: true))
                }
                throw error
            }
            if storeFull.withLock({ full in defer { full = false }; return full }) { emit(.storage(full: false)) }
            changes.newLogins = ownLogin.news(changes.newLogins)
            await secretFollowUp(changes)
            total.merge(changes)
            let advanced = page.cursor > cursor
            cursor = max(page.cursor, cursor)
            if !changes.conversationIds.isEmpty || !changes.updatedClientMsgIDs.isEmpty || !changes.newLogins.isEmpty {
                emit(.applied(changes))
            }
            if !page.hasMore { break }
            if !advanced {
                // "More" without moving the cursor would ask for the same page forever.
                logger.warning("sync said hasMore but its cursor did not advance (\(page.cursor)); stopping this pull")
                break
            }
        }
        // After the events, so a start shows what came first; once a run.
        await ensureSecretKeys()
        await fillProfiles(for: total.conversationIds)
        await fillMembers(of: total.groupIds)
        return total
    }

    /// A group changed (someone joined, left, was renamed): its member list
    /// is fetched again, for sender names and `@` completion.
    public func fillMembers(of groupIds: Set<Int>) async {
        var changes = AppliedChanges()
        for gid in groupIds.sorted() {
            do {
                try store.saveMembers(try await api.groupMembers(groupId: gid), groupId: gid)
                changes.conversationIds.insert(ConversationIDHelper.group(gid))
                changes.groupIds.insert(gid)
            } catch let e as APIError where e.code == .forbidden || e.code == .notFound {
                // No longer a member (or the group is gone): keep what is cached.
                continue
            } catch {
                logger.notice("members of group \(gid) not fetched: \(Self.reason(error))")
            }
        }
        if !changes.conversationIds.isEmpty { emit(.applied(changes)) }
    }

    /// A conversation a stranger started arrives with nothing but ids: its
    /// peer's profile (name, account) is fetched once (seed §五's
    /// `openim-batch`) so the list shows a name. `nil`: every conversation.
    public func fillProfiles(for conversationIds: Set<String>?) async {
        if conversationIds?.isEmpty == true { return }
        guard let lacking = try? store.peersLackingProfile(conversationIds: conversationIds) else { return }
        let ask = profilesAsked.withLock { asked in
            let new = lacking.filter { !asked.contains($0) }
            asked.formUnion(new)
            return new
        }
        guard !ask.isEmpty else { return }
        do {
            let infos = try await api.profiles(ask)
            try store.saveProfiles(infos)
            var changes = AppliedChanges()
            changes.conversationIds = try store.conversationIds(withPeers: infos.map(\.uid))
            if !changes.conversationIds.isEmpty { emit(.applied(changes)) }
        } catch {
            // Offline or refused: asked again on a later pull.
            profilesAsked.withLock { $0.subtract(ask) }
            logger.notice("profiles not fetched: \(Self.reason(error))")
        }
    }

    /// What a push notice does, for whoever learns of new events another
    /// way (a test's fake server, say): a pull soon, shared with other
    /// notices in a burst.
    public func requestPull() { noticeArrived() }

    /// A push notice: pull now, or — when the last notice-driven pull
    /// started less than `noticeGap` ago — once that much time has passed,
    /// for every notice arriving meanwhile together.
    func noticeArrived() {
        let gap = timing.noticeGap
        let delay: Duration? = noticeState.withLock { s in
            if s.scheduled { return nil }
            s.scheduled = true
            guard let last = s.lastStart else { return .zero }
            let since = ContinuousClock.now - last
            return since >= gap ? .zero : gap - since
        }
        guard let delay else { return }
        let due = ContinuousClock.now + delay
        Task {
            // A timer may fire a little early: the gap is kept by the clock, not the timer.
            while ContinuousClock.now < due, !Task.isCancelled { try? await Task.sleep(until: due, clock: .continuous) }
            self.noticeState.withLock { s in
                s.scheduled = false
                s.lastStart = .now
            }
            _ = try? await self.pull()
        }
    }

    /// 410: reload the conversation list (maxSeq from the server opens the
    /// gaps that `missingRanges` reports) and start the log over.
    func resync() async throws {
        logger.notice("sync cursor expired; reloading conversations")
        let summaries = try await api.conversations()
        try store.saveSummaries(summaries)
        try store.setSyncCursor(0)
        emit(.resynced)
    }

    // MARK: - Loops

    /// Without a socket the poll is all there is: it runs at the offline
    /// pace, and its answers alone say whether the server is reachable.
    func pollLoop() async {
        let hasPush = pushTarget != nil
        var brought = false
        while !Task.isCancelled {
            try? await Task.sleep(for: timing.pollWait(pushUp: hasPush && state == .online, lastPullBrought: brought))
            if Task.isCancelled { return }
            do {
                brought = !(try await pull()).conversationIds.isEmpty
                if !hasPush { setState(.online) }
            } catch {
                brought = false
                if !hasPush || state != .online { setState(.offline(Self.reason(error))) }
            }
        }
    }

    func pushLoop() async {
        guard pushTarget != nil else { return }
        var attempt = 0
        while !Task.isCancelled, !isSignedOut {
            setState(.connecting)
            let connectedAt = ContinuousClock.now
            let reason = await connectOnce()
            if Task.isCancelled { return }
            if ContinuousClock.now - connectedAt > .seconds(10) { attempt = 0 }
            setState(.offline(reason))
            attempt += 1
            try? await Task.sleep(for: Self.backoff(attempt: attempt, base: timing.backoffBase, cap: timing.backoffCap))
        }
    }

    /// One socket session; returns why it ended.
    func connectOnce() async -> String {
        var wsLogger = logger
        wsLogger.logLevel = .critical
        do {
            guard let url = pushTarget else { return "no push socket" }
            let closed = try await WebSocketClient.connect(url: url, configuration: Self.pushConfiguration(url: url),
                                             tlsConfiguration: api.pushTLSConfiguration,
                                             logger: wsLogger) { inbound, outbound, _ in
                let pinger = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(25))
                        try? await outbound.write(.text(#"{"type":"ping"}"#))
                    }
                }
                defer { pinger.cancel() }
                for try await message in inbound.messages(maxSize: Self.maxPushFrame) {
                    guard case .text(let text) = message,
                          let frame = PushFrame.decode(text) else { continue }
                    switch frame {
                    case .hello, .sync:
                        if case .hello = frame { self.setState(.online) }
                        self.noticeArrived()
                    case .presence(let user, let online):
                        try? self.store.setOnline(imUid: user, online: online)
                        self.emit(.presence(userId: user, online: online))
                    case .ping, .pong:
                        break
                    case .room(let m): self.emit(.room(.message(m)))
                    case .roomUpdate(let m): self.emit(.room(.update(m)))
                    case .roomInfo(let r): self.emit(.room(.info(r)))
                    case .typing(let conversationId, let userId, let ttlMs):
                        self.emit(.typing(conversationId: conversationId, userId: userId, ttlMs: ttlMs))
                    case .readChanged(let conversationId): self.emit(.readChanged(conversationId: conversationId))
                    }
                }
            }
            if closed?.closeCode == .unknown(PushCloseCode.signedOut) {
                loginEnded()
                return "signed out"
            }
            return "connection closed"
        } catch {
            return Self.reason(error)
        }
    }

    /// TLS forbids an IP address as the server name (SNI), and NIOSSL
    /// refuses to send one, but swift-websocket always sends the URL's host
    /// unless told another name. For `wss://` to an address it is told a
    /// name under `.invalid` (RFC 6761: never a real host, so no public CA
    /// certifies it): the server, which serves one certificate, ignores it,
    /// and verification still requires the certificate's IP address entry
    /// to match the address connected to.
    static func pushConfiguration(url: String) -> WebSocketClientConfiguration {
        // `encodedHost`: the host as written (an IDN stays in its ASCII
        // form), which is all an IP test needs; `host` would load ICU's
        // IDNA tables to decode it.
        guard let host = URLComponents(string: url)?.encodedHost, isIPAddress(host) else { return .init(maxFrameSize: maxPushFrame) }
        return .init(maxFrameSize: maxPushFrame, sniHostname: ipHostSNI)
    }

    /// A room's message comes whole in one frame: 4,000 characters of emoji
    /// or combining marks pass 16 KiB (the library's default), and a frame
    /// over the limit closed the socket, which left every room.
    static let maxPushFrame = 4 << 20

    static let ipHostSNI = "ip-address.invalid"

    static func isIPAddress(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }

    static func reason(_ error: any Error) -> String {
        if let e = error as? APIError { return e.description }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("401") || text.contains("unauthorized") { return "not authorised" }
        return text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}

/// Runs one pull at a time; callers arriving while one waits share it.
actor PullGate {
    private var tail: Task<AppliedChanges, any Error>?
    private var waiting: Task<AppliedChanges, any Error>?

    func run(_ body: @escaping @Sendable () async throws -> AppliedChanges) async throws -> AppliedChanges {
        if let waiting { return try await waiting.value }
        let previous = tail
        let task = Task {
            _ = try? await previous?.value
            self.started()
            return try await body()
        }
        waiting = task
        tail = task
        return try await task.value
    }

    private func started() { waiting = nil }
}

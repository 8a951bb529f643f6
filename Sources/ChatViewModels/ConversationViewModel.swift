import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Seed §六: one chat. `messages` is newest first (index 0 is the newest),
/// with time markers, as in the seed.
@MainActor
public final class ConversationViewModel {
    public static let pageSize = 40

    public private(set) var conversation: Conversation
    public internal(set) var messages: [ChatMessage] = []
    public private(set) var isLoading = false
    public internal(set) var hasMoreHistory = true
    public private(set) var newMessageBannerCount = 0
    /// Whether the newest message is in view; set by `scrolled(toBottom:)`.
    public private(set) var isAtBottom = true
    public var errorMessage: String?
    public var onChange: (() -> Void)?
    // Groups (see ConversationViewModel+Group.swift).
    /// Display names by imUid: members, then cached profiles.
    public internal(set) var senderNames: [String: String] = [:]
    /// Owner first, then by joining time.
    public internal(set) var members: [GroupMember] = []
    public internal(set) var group: GroupInfo?
    /// Whether the group's names, members and info must be read again:
    /// only when a sync said the group changed, not on every new message
    /// (a flood in a large group would reread its member list per pull).
    var groupStale = true

    let session: Session
    let localizer: Localizer
    /// Which stored messages are shown (grows with loadMoreHistory, and
    /// while scrolled up, with what arrives).
    private(set) var window = ChatWindow(count: pageSize)
    /// The window as last read, for showing progress without reading again.
    private var page = MessagePage(messages: [], lowestSeq: nil)
    /// While scrolled up: the newest seq that was in view when the reader
    /// left the bottom; the banner counts what came after it.
    private var bannerAfterSeq: Int?
    /// Follows the store while the chat is on screen.
    private var windowTask: Task<Void, Never>?
    private var observer: Int?
    private var queueWatched = false
    private var progress: [String: Double] = [:]
    var resolvedURLs: [String: String] = [:]

    public init(conversation: Conversation, session: Session, localizer: Localizer = .current) {
        self.conversation = conversation
        self.session = session
        self.localizer = localizer
    }

    public var myImUid: String { session.credentials.imUid }
    var id: String { conversation.id }

    func changed() { onChange?() }

    // MARK: - Lifecycle

    public func onAppear() async {
        showLocal()
        await completeAppearance()
    }

    /// Whether the chat is on screen: between `showLocal` and `onDisappear`.
    private(set) var isVisible = false

    /// The part of appearing that needs no network: what the store has,
    /// on screen and read. A UI calls it before answering the next key.
    public func showLocal() {
        isVisible = true
        watchQueue()
        isLoading = true
        reload()
        observeWindow()
        changed()
        markRead()
    }

    /// The rest, which asks the server: missing history, the signal quote,
    /// then listening, the read position and the pictures. A UI runs it
    /// beside its keys (a slow or dead server must not hold up the next
    /// one); when the chat was left meanwhile, it stops after the history.
    public func completeAppearance() async {
        await fillFromServer()
        isLoading = false
        guard isVisible else { return }
        reload()
        changed()
        if conversation.fromSignal && !conversation.isImOpened { await sendSignalQuote() }
        guard isVisible else { return }
        startListening()
        markRead()
        refreshMediaInBackground()
        if conversation.isGroup && conversation.isMember { await refreshMembers() }
    }

    /// URL signing and picture downloads run beside the UI (seed: `Task {
    /// prefetch }`): opening a chat never waits for the network's pictures.
    var mediaTask: Task<Void, Never>?

    func refreshMediaInBackground() {
        mediaTask?.cancel()
        mediaTask = Task { [weak self] in await self?.refreshMediaURLs() }
    }

    /// Saves the draft (blank removes it) and stops listening.
    public func onDisappear(draft: String?) {
        isVisible = false
        mediaTask?.cancel()
        mediaTask = nil
        windowTask?.cancel()
        windowTask = nil
        try? session.setDraft(id, draft)
        if let observer { session.sync.removeObserver(observer) }
        observer = nil
    }

    func startListening() {
        guard observer == nil else { return }
        observer = session.sync.observe { [weak self] update in
            Task { @MainActor in self?.handle(update) }
        }
    }

    /// Hears the send queue's upload progress, which is not in the store
    /// (whether a message was sent or failed is: the window shows it).
    func watchQueue() {
        guard !queueWatched else { return }
        queueWatched = true
        session.sendQueue.onProgress { [weak self] msgId, value in
            Task { @MainActor in self?.setProgress(msgId, value) }
        }
    }

    /// Reads the window again after every commit that may change it,
    /// whoever wrote it: the sync, the send queue (sent, failed), our own
    /// actions.
    func observeWindow() {
        windowTask?.cancel()
        let changes = session.reader.chatChanges()
        windowTask = Task { @MainActor [weak self] in
            for await _ in changes {
                guard let self, !Task.isCancelled else { return }
                self.reload()
                self.changed()
            }
        }
    }

    /// Moves the window and reads it at once.
    func setWindow(_ new: ChatWindow) {
        guard new != window else { return }
        window = new
        reload()
    }

    func setProgress(_ msgId: String, _ value: Double) {
        // Reports hop here through tasks: only growth is shown, 0 starts over.
        let value = value == 0 ? 0 : max(progress[msgId] ?? 0, value)
        guard progress[msgId] != value else { return }
        progress[msgId] = value
        show(page)
        changed()
    }

    // MARK: - Loading

    /// Rebuilds `messages` from the store, keeping how far back we loaded.
    public func reload() {
        guard let page = try? session.reader.window(window, conversationId: id) else { return }
        show(page)
    }

    func show(_ page: MessagePage) {
        self.page = page
        // A full window may have older messages below it, stored or not:
        // messages that arrived while the chat was open slide the window up
        // past ones it showed, and those must stay reachable by scrolling
        // back even after the server said it has nothing older (paging back
        // asks the store first, and turns this off again at the oldest).
        if page.messages.count >= window.count { hasMoreHistory = true }
        if let c = try? session.reader.conversation(id: id, localizer: localizer) { conversation = c }
        if conversation.isGroup && groupStale { loadGroup() }
        var mapped = page.messages.map { record -> ChatMessage in
            var m = record.chatMessage(myImUid: myImUid)
            if let p = progress[m.id] { m.uploadProgress = p }
            if let key = m.objectKey, let url = resolvedURLs[key] { m.imageUrl = url }
            if let keys = m.multiObjectKeys {
                // Write back through a copy, index by index (seed §三 pitfall).
                var urls = m.multiImageUrls ?? Array(repeating: "", count: keys.count)
                if urls.count < keys.count { urls += Array(repeating: "", count: keys.count - urls.count) }
                for (i, k) in keys.enumerated() { if let u = resolvedURLs[k] { urls[i] = u } }
                m.multiImageUrls = urls
            }
            return m
        }
        mapped.reverse()
        messages = Self.insertTimeMarkers(into: mapped)
        // The banner is counted from the same read as the messages, so the
        // two never disagree on screen (a scrolled-up window is anchored and
        // grows, so everything newer is in it); older messages a sync brings
        // do not count.
        if let after = bannerAfterSeq {
            newMessageBannerCount = page.messages.filter {
                ($0.seq ?? 0) > after && $0.sendID != myImUid && !$0.isControl && !ContentType.isGroupNotice($0.contentType)
            }.count
        }
    }

    /// Fills holes among the newest messages from the server.
    func fillFromServer() async {
        do {
            let missing = try session.reader.missingRanges(conversationId: id)
            let local = try session.reader.newestPage(conversationId: id, limit: Self.pageSize).messages.count
            guard let top = missing.last else {
                if local < Self.pageSize { hasMoreHistory = try await fetchOlder(before: try lowestSeq()) }
                return
            }
            let high = top.upperBound
            let page = try await session.fetchHistory(id, beforeSeq: high + 1, limit: Self.pageSize) { p in
                (p.hasMore ? (p.messages.first?.seq ?? high + 1) : 1, high)
            }
            if !page.hasMore && missing.count == 1 { hasMoreHistory = false }
        } catch {
            errorMessage = describe(error)
        }
    }

    func lowestSeq() throws -> Int {
        let low = try session.reader.lowestLocalSeq(conversationId: id)
        return low == 0 ? Int.max : low
    }

    /// Server history before `seq`; returns whether the server has more.
    func fetchOlder(before seq: Int) async throws -> Bool {
        let newest = seq == Int.max
        return try await session.fetchHistory(id, beforeSeq: newest ? nil : seq, limit: Self.pageSize) { p in
            (p.hasMore ? (p.messages.first?.seq ?? 1) : 1, newest ? (p.messages.last?.seq ?? 0) : max(seq, 1) - 1)
        }.hasMore
    }

    /// A hole in the history right below what is shown (after a 410
    /// resync, say: seqs 1…10 and 101…140 kept) is fetched before paging
    /// on, so scrolling back never jumps from seq 101 to seq 10.
    func fillHoleBelowWindow() async throws {
        guard let low = page.lowestSeq,
              let hole = try session.reader.missingRanges(conversationId: id).last(where: { $0.upperBound < low }) else { return }
        // Stored messages between the hole and the window come first.
        let nextStored = try session.reader.page(conversationId: id, before: low, limit: 1).messages.compactMap(\.seq).max()
        if let nextStored, nextStored > hole.upperBound { return }
        let (lower, upper) = (hole.lowerBound, hole.upperBound)
        try await session.fetchHistory(id, beforeSeq: upper + 1, limit: Self.pageSize) { p in
            (p.hasMore ? (p.messages.map(\.seq).min() ?? lower) : 1, upper)
        }
    }

    /// Store first, then the server, 40 at a time. `hasMoreHistory` turns
    /// false only when the server says there is nothing older.
    public func loadMoreHistory() async {
        guard hasMoreHistory, !isLoading else { return }
        isLoading = true
        changed()
        defer { isLoading = false; changed(); refreshMediaInBackground() }
        do {
            try await fillHoleBelowWindow()
        } catch {
            errorMessage = describe(error)
        }
        let before = visibleCount
        growWindow(to: page.messages.count + Self.pageSize)
        if visibleCount - before >= Self.pageSize { return }
        do {
            let oldest = try lowestSeq()
            let missingBelow = try session.reader.missingRanges(conversationId: id).contains { $0.upperBound < oldest }
            if oldest == Int.max || oldest > 1 || missingBelow {
                hasMoreHistory = try await fetchOlder(before: oldest)
            } else {
                hasMoreHistory = false
            }
        } catch {
            errorMessage = describe(error)
        }
        reload()
        anchorWindow()
    }

    var visibleCount: Int { messages.filter { $0.type != .time }.count }

    /// At least `count` messages, anchored at the new oldest.
    func growWindow(to count: Int) {
        setWindow(ChatWindow(count: max(window.count, count), keepFrom: window.keepFrom))
        anchorWindow()
    }

    /// Scrolled up, the window keeps everything from its oldest message on,
    /// so what arrives grows it instead of sliding the reader's place away.
    func anchorWindow() {
        guard !isAtBottom, let low = page.lowestSeq, low < window.keepFrom ?? .max else { return }
        setWindow(ChatWindow(count: window.count, keepFrom: low))
    }

    /// Jumps to a search hit: loads enough history to include `seq`.
    public func reveal(seq: Int) {
        guard let newest = (try? session.reader.newestPage(conversationId: id, limit: 1))?.messages.last?.seq,
              let count = try? session.reader.visibleCount(conversationId: id, from: seq, to: newest) else { return }
        growWindow(to: count + Self.pageSize / 2)
        changed()
        refreshMediaInBackground()
    }

    // MARK: - Incoming

    func handle(_ update: SyncUpdate) {
        if case .presence(let user, let online) = update {
            // The header's "online" follows the peer's sockets while the chat is open.
            guard !conversation.isGroup, ConversationIDHelper.uid(fromImUid: user) == conversation.targetUid,
                  conversation.isOnline != online,
                  let c = try? session.reader.conversation(id: id, localizer: localizer) else { return }
            conversation = c
            changed()
            return
        }
        guard case .applied(let changes) = update,
              changes.conversationIds.contains(id) || !changes.updatedClientMsgIDs.isEmpty else { return }
        // The messages follow by themselves (observeWindow); the header and
        // the group's names and members are read here.
        if let c = try? session.reader.conversation(id: id, localizer: localizer) { conversation = c }
        if let gid = conversation.groupId, changes.groupIds.contains(gid) { loadGroup() }
        if (changes.incoming[id] ?? 0) > 0 && isAtBottom { markRead() }
        changed()
        refreshMediaInBackground()
    }

    /// The user reached the newest message (the banner goes, everything is
    /// read) or scrolled away from it (new messages count in the banner).
    public func scrolled(toBottom: Bool) {
        guard isAtBottom != toBottom else { return }
        isAtBottom = toBottom
        bannerAfterSeq = toBottom ? nil : (page.messages.compactMap(\.seq).max() ?? 0)
        // Back at the bottom the window keeps its size and slides again.
        setWindow(ChatWindow(count: toBottom ? max(window.count, page.messages.count) : window.count,
                             keepFrom: toBottom ? nil : page.lowestSeq))
        if toBottom {
            newMessageBannerCount = 0
            bannerAfterSeq = nil
            markRead()
            changed()
        }
    }

    /// Saves what is typed and not sent (blank removes the draft).
    public func saveDraft(_ text: String?) {
        try? session.setDraft(id, text)
    }

    /// The stored messages matching `query` in this chat, newest first.
    public func search(_ query: String, limit: Int = 50) -> [MessageRecord] {
        (try? session.reader.search(query, conversationId: id, limit: limit)) ?? []
    }

    /// Marks everything shown read, locally and on the server.
    public func markRead() {
        guard let newest = (try? session.reader.newestPage(conversationId: id, limit: 1))?.messages.last?.seq,
              newest > conversation.readSeq || conversation.unreadCount > 0 else { return }
        guard (try? session.markReadLocally(id, upTo: newest)) != nil else { return }
        conversation.readSeq = max(conversation.readSeq, newest)
        conversation.unreadCount = 0
        sendRead(newest)
    }

    /// The read position the server should hear of, and whether a request
    /// is on its way: during a flood one request at a time carries the
    /// newest seq instead of one request per incoming page.
    var readWanted = 0
    var readSending = false

    func sendRead(_ seq: Int) {
        readWanted = max(readWanted, seq)
        guard !readSending else { return }
        readSending = true
        let session = self.session, id = self.id
        Task { @MainActor in
            while true {
                let seq = readWanted
                try? await session.sendReadMark(id, upTo: seq)
                if readWanted <= seq { break }
            }
            readSending = false
        }
    }

    // MARK: - Helpers

    /// Seed §六: walks oldest to newest and puts a `MM-dd HH:mm` marker
    /// before a message more than five minutes after the last marker, in
    /// the user's time zone (`utcOffsetSeconds` fixes one, for tests).
    nonisolated public static func insertTimeMarkers(into msgs: [ChatMessage], utcOffsetSeconds: Int? = nil) -> [ChatMessage] {
        guard !msgs.isEmpty else { return [] }
        // The C library's local time (LocalTime), not a DateFormatter or
        // Calendar: building a formatter cost more than the rest of the
        // reload, and either loads ICU's locale data.
        var result: [ChatMessage] = []
        var lastTimestamp = 0
        for msg in msgs.reversed() {
            let (gap, overflow) = msg.createTime.subtractingReportingOverflow(lastTimestamp)
            if overflow || gap > 5 * 60 * 1000 {
                let text: String
                if let t = LocalTime.of(milliseconds: msg.createTime, utcOffsetSeconds: utcOffsetSeconds) {
                    text = LocalTime.two(t.month) + "-" + LocalTime.two(t.day) + " " + t.clock
                } else {
                    text = "--"   // a time no calendar can show (a store edited by hand)
                }
                result.append(ChatMessage(id: "time_\(msg.createTime)", senderId: "", receiverId: "", conversationId: msg.conversationId,
                                          type: .time, content: .timeMarker(text), createTime: msg.createTime, isRead: true, isMe: false))
                lastTimestamp = msg.createTime
            }
            result.append(msg)
        }
        return result.reversed()
    }

    func fail(_ error: any Error) {
        errorMessage = describe(error)
        changed()
    }

    func describe(_ error: any Error) -> String {
        if let e = error as? APIError {
            if e.code == .revokeWindowPassed { return localizer.string("error.revokeWindow") }
            return e.description
        }
        if StoreError.isDiskFull(error) { return localizer.string("error.diskFull.send") }
        return "\(error)"
    }
}

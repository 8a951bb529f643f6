import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Performs a chat's effects and the user's actions on it: reads of the
/// store, the session's actions, the send queue, the media cache. Holds
/// nothing but the session: every outcome goes back as a `ChatEvent` for
/// `ChatState.update`.
@MainActor
public struct ChatEffects {
    public typealias Emit = @MainActor (ChatEvent) async -> Void

    let session: Session
    let localizer: Localizer

    public init(session: Session, localizer: Localizer = .current) {
        self.session = session
        self.localizer = localizer
    }

    var reader: any StoreReader { session.reader }

    /// Performs `effect` for the chat `c` (as the update that asked saw it).
    /// `.follow` and `.stopFollowing` are the host's (`follow(_:)`).
    public func perform(_ effect: ChatEffect, for c: Conversation, emit: Emit) async {
        switch effect {
        case .readWindow(let window, let group):
            if let r = read(window, of: c, group: group) { await emit(.windowRead(r)) }
        case .follow:
            break
        case .stopFollowing(let draft, let readMark):
            try? session.setDraft(c.id, draft)
            if let readMark {
                // Not tied to the chat: it must reach the server after the chat closed.
                let session = self.session
                Task { try? await session.sendReadMark(c.id, upTo: readMark) }
            }
        case .fillFromServer:
            await emit(.filled(hasMoreHistory: await fillFromServer(c.id, emit: emit)))
        case .pageBack(let from):
            let (window, more) = await pageBack(c.id, from: from, emit: emit)
            await emit(.pagedBack(window, hasMoreHistory: more))
        case .reveal(let seq):
            guard let newest = (try? reader.newestPage(conversationId: c.id, limit: 1))?.messages.last?.seq,
                  let count = try? reader.visibleCount(conversationId: c.id, from: seq, to: newest) else { return }
            await emit(.revealed(count: count))
        case .markRead where c.isRoom, .sendReadMark where c.isRoom:
            // Rooms have no read position on the server (never unread).
            return
        case .markRead:
            guard let newest = (try? reader.newestPage(conversationId: c.id, limit: 1))?.messages.last?.seq,
                  newest > c.readSeq || c.unreadCount > 0,
                  (try? session.markReadLocally(c.id, upTo: newest)) != nil else { return }
            await emit(.markedRead(seq: newest))
        case .sendReadMark(let seq):
            try? await session.sendReadMark(c.id, upTo: seq)
            await emit(.readSent(seq: seq))
        case .refreshMedia(let media):
            await refreshMedia(media, emit: emit)
        case .refreshMembers:
            guard let gid = c.groupId else { return }
            // Offline or no longer a member: the cached list stays.
            try? await session.refreshGroup(gid)
            await emit(.groupChanged)
        case .sendSignalQuote:
            guard let reply = c.signalReply, let signalId = c.signalId else { return }
            let quote = SignalQuotePayload(signalId: signalId, replyContent: reply, signalContent: c.signalContent ?? "")
            await queue(emit) {
                // Sent once across my devices: the same id from each (a second one's send is the first's).
                let id = c.receiveId.map(SignalQuoteID.clientMsgID(receiveId:)) ?? UUID().uuidString
                if try session.reader.message(clientMsgID: id) == nil {
                    try await session.sendQueue.enqueue(.signalQuote(quote), to: c.id, receiveId: c.receiveId, clientMsgID: id)
                }
                try await session.openIM(c.id, receiveId: c.receiveId)
            }
        }
    }

    // MARK: - Reading

    /// The window's page, the header's conversation, the cached pictures,
    /// and the group's names and members when asked.
    public func read(_ window: ChatWindow, of c: Conversation, group: Bool) -> WindowRead? {
        guard let page = try? reader.window(window, conversationId: c.id) else { return nil }
        var cached = Set<String>()
        // Pictures are custom payloads: only those are decoded here (the update maps the page once).
        for r in page.messages where r.contentType == ContentType.custom && !r.revoked {
            if let p = r.chatMessage(myImUid: session.credentials.imUid).content.image,
               session.media.localURL(for: p.objectKey) != nil { cached.insert(p.objectKey) }
        }
        var groupRead: WindowRead.GroupRead?
        if group, let gid = c.groupId {
            groupRead = WindowRead.GroupRead(senderNames: (try? reader.senderNames(groupId: gid)) ?? [:],
                                             members: (try? reader.members(groupId: gid)) ?? [],
                                             info: try? reader.group(id: gid))
        }
        return WindowRead(conversationId: c.id, window: window, page: page,
                          conversation: try? reader.conversation(id: c.id, localizer: localizer),
                          cachedKeys: cached, group: groupRead)
    }

    /// Follows what changes the chat without a request of its own: every
    /// commit that may change its window (the sync, the send queue, another
    /// terminal's `tongban send`), the queue's upload progress, and, when
    /// `sync`, the sync engine's updates. Ends with `cancel()`.
    public func follow(sync: Bool, _ emit: @escaping Emit) -> ChatFollowing {
        let changes = reader.chatChanges()
        let store = Task { @MainActor in
            for await _ in changes {
                if Task.isCancelled { return }
                await emit(.storeChanged)
            }
        }
        let reports = session.sendQueue.progressUpdates()
        let progressTask = Task { @MainActor in
            for await (id, value) in reports {
                if Task.isCancelled { return }
                await emit(.progress(messageId: id, value))
            }
        }
        var observer: Int?
        if sync {
            observer = session.sync.observe { update in
                Task { @MainActor in await emit(.sync(update)) }
            }
        }
        return ChatFollowing(tasks: [store, progressTask], observer: observer, sync: session.sync)
    }

    // MARK: - History

    /// Fills holes among the newest messages; returns what it learnt about
    /// older history (false: the server has none).
    func fillFromServer(_ id: String, emit: Emit) async -> Bool? {
        do {
            let missing = try reader.missingRanges(conversationId: id)
            let local = try reader.newestPage(conversationId: id, limit: ChatState.pageSize).messages.count
            guard let top = missing.last else {
                if local < ChatState.pageSize { return try await fetchOlder(id, before: try lowestSeq(id)) }
                return nil
            }
            let high = top.upperBound
            let page = try await session.fetchHistory(id, beforeSeq: high + 1, limit: ChatState.pageSize) { p in
                (p.hasMore ? (p.messages.first?.seq ?? high + 1) : 1, high)
            }
            return !page.hasMore && missing.count == 1 ? false : nil
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
            return nil
        }
    }

    func lowestSeq(_ id: String) throws -> Int {
        let low = try reader.lowestLocalSeq(conversationId: id)
        return low == 0 ? Int.max : low
    }

    /// Server history before `seq`; returns whether the server has more.
    func fetchOlder(_ id: String, before seq: Int) async throws -> Bool {
        let newest = seq == Int.max
        return try await session.fetchHistory(id, beforeSeq: newest ? nil : seq, limit: ChatState.pageSize) { p in
            (p.hasMore ? (p.messages.first?.seq ?? 1) : 1, newest ? (p.messages.last?.seq ?? 0) : max(seq, 1) - 1)
        }.hasMore
    }

    /// Store first, then the server, 40 at a time: the window that holds
    /// the older messages, and whether the server has more (nil: not asked).
    func pageBack(_ id: String, from: PageBack, emit: Emit) async -> (ChatWindow, Bool?) {
        do {
            try await fillHoleBelow(id, lowestSeq: from.lowestSeq)
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
        var window = ChatWindow(count: max(from.window.count, from.loaded + ChatState.pageSize), keepFrom: from.window.keepFrom)
        let grown = (try? reader.window(window, conversationId: id))?.messages.count ?? from.loaded
        if grown - from.loaded >= ChatState.pageSize { return (anchored(window, id, from.isAtBottom), nil) }
        var more: Bool?
        do {
            let oldest = try lowestSeq(id)
            let missingBelow = try reader.missingRanges(conversationId: id).contains { $0.upperBound < oldest }
            if oldest == Int.max || oldest > 1 || missingBelow {
                more = try await fetchOlder(id, before: oldest)
            } else {
                more = false
            }
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
        window = anchored(window, id, from.isAtBottom)
        return (window, more)
    }

    /// Scrolled up, the window grown by paging back keeps its new oldest message.
    func anchored(_ window: ChatWindow, _ id: String, _ isAtBottom: Bool) -> ChatWindow {
        guard !isAtBottom, let low = (try? reader.window(window, conversationId: id))?.lowestSeq,
              low < window.keepFrom ?? .max else { return window }
        return ChatWindow(count: window.count, keepFrom: low)
    }

    /// A hole in the history right below what is shown (after a 410
    /// resync, say: seqs 1…10 and 101…140 kept) is fetched before paging
    /// on, so scrolling back never jumps from seq 101 to seq 10.
    func fillHoleBelow(_ id: String, lowestSeq: Int?) async throws {
        guard let low = lowestSeq,
              let hole = try reader.missingRanges(conversationId: id).last(where: { $0.upperBound < low }) else { return }
        // Stored messages between the hole and the window come first.
        let nextStored = try reader.page(conversationId: id, before: low, limit: 1).messages.compactMap(\.seq).max()
        if let nextStored, nextStored > hole.upperBound { return }
        let (lower, upper) = (hole.lowerBound, hole.upperBound)
        try await session.fetchHistory(id, beforeSeq: upper + 1, limit: ChatState.pageSize) { p in
            (p.hasMore ? (p.messages.map(\.seq).min() ?? lower) : 1, upper)
        }
    }

    // MARK: - Media

    /// Re-signs expired URLs in one call, then prefetches (never flash images).
    func refreshMedia(_ media: [ChatMessage], emit: Emit) async {
        guard !media.isEmpty else { return }
        do {
            let fresh = try await session.media.resolveMediaURLs(for: media)
            if Task.isCancelled { return }
            await emit(.mediaResolved(fresh))
            for m in media where !m.isFlash && !m.isRecalled {
                for key in (m.objectKey.map { [$0] } ?? []) + (m.multiObjectKeys ?? []) {
                    guard session.media.localURL(for: key) == nil, let url = fresh[key] ?? m.imageUrl, !url.isEmpty,
                          url.hasPrefix("http") else { continue }
                    if Task.isCancelled { return }
                    // Each picture shows as soon as it is in the cache.
                    if (try? await session.media.prefetch(url: url, expireAt: 0, objectKey: key)) != nil {
                        await emit(.cached(key: key))
                    }
                }
            }
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
    }

    // MARK: - Errors

    /// Runs a queueing call: `.sent` after it, or the reason it failed.
    func queue(_ emit: Emit, _ body: () async throws -> Void) async {
        do {
            try await body()
            await emit(.sent)
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
    }

    /// A chat's actions are mostly sends: on a full disk the text stays in the input.
}

/// A chat's subscriptions (`ChatEffects.follow`), until cancelled.
@MainActor
public final class ChatFollowing {
    let tasks: [Task<Void, Never>]
    let observer: Int?
    let sync: SyncEngine

    init(tasks: [Task<Void, Never>], observer: Int?, sync: SyncEngine) {
        self.tasks = tasks; self.observer = observer; self.sync = sync
    }

    public func cancel() {
        for t in tasks { t.cancel() }
        if let observer { sync.removeObserver(observer) }
    }
}

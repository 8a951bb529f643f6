import ChatCore
import ChatStore
import ChatSync
import Foundation

/// The chat's logic: one event in, the state changed, the I/O wanted out.
/// No reads, no writes, no network: a window read, a page of history, a
/// send's outcome all come back as events.
extension ChatState {
    public mutating func update(_ event: ChatEvent) -> [ChatEffect] {
        switch event {
        case .appear:
            isVisible = true
            isLoading = true
            // The store's part first (on screen and read before the next
            // key), then the server's, beside the keys.
            return [.follow, read(), .markRead, .fillFromServer]
        case .disappear(let draft):
            isVisible = false
            return [.stopFollowing(draft: draft, readMark: readWanted > readAcked ? readWanted : nil)]
        case .windowRead(let r):
            guard r.conversationId == id, r.window == window else { return [] }
            show(r)
            return mediaWanted()
        case .storeChanged:
            return [read()]
        case .sync(let update):
            return synced(update)
        case .progress(let messageId, let value):
            // Reports hop here through tasks: only growth is shown, 0 starts over.
            let value = value == 0 ? 0 : max(progress[messageId] ?? 0, value)
            guard progress[messageId] != value else { return [] }
            progress[messageId] = value
            derive()
            return []
        case .filled(let more):
            isLoading = false
            if more == false { hasMoreHistory = false }
            guard isVisible else { return [] }
            var effects: [ChatEffect] = [read()]
            if conversation.fromSignal && !conversation.isImOpened { effects.append(.sendSignalQuote) }
            effects.append(.markRead)
            mediaAfterRead = true
            if conversation.isGroup && conversation.isMember { effects.append(.refreshMembers) }
            return effects
        case .scrolled(let toBottom):
            return scrolled(toBottom: toBottom)
        case .loadMore:
            guard hasMoreHistory, !isLoading else { return [] }
            isLoading = true
            return [.pageBack(PageBack(window: window, lowestSeq: page.lowestSeq, loaded: page.messages.count,
                                       isAtBottom: isAtBottom))]
        case .pagedBack(let new, let more):
            isLoading = false
            if let more { hasMoreHistory = more }
            window = new
            mediaAfterRead = true
            return [read()]
        case .revealed(let count):
            window = ChatWindow(count: max(window.count, count + Self.pageSize / 2), keepFrom: window.keepFrom)
            mediaAfterRead = true
            return [read()]
        case .markedRead(let seq):
            conversation.readSeq = max(conversation.readSeq, seq)
            conversation.unreadCount = 0
            readWanted = max(readWanted, seq)
            guard !readInFlight else { return [] }
            readInFlight = true
            return [.sendReadMark(seq: readWanted)]
        case .readSent(let seq):
            readAcked = max(readAcked, seq)
            guard readWanted > seq else { readInFlight = false; return [] }
            return [.sendReadMark(seq: readWanted)]
        case .mediaResolved(let fresh):
            resolvedURLs.merge(fresh) { _, new in new }
            derive()
            return []
        case .cached(let key):
            cachedKeys.insert(key)
            return []
        case .groupChanged:
            groupStale = true
            return [read()]
        case .sent:
            // The message shows at the newest: the store's change signal
            // reads it; only a window that moves is read here.
            return scrolled(toBottom: true)
        case .revoking(let messageId):
            guard let i = messages.firstIndex(where: { $0.id == messageId }), messages[i].isMe, !messages[i].isRecalled else { return [] }
            messages[i].isRecalled = true
            return []
        case .cleared:
            hasMoreHistory = false
            return [read()]
        case .told:
            // The host shows the words.
            return []
        }
    }

    /// A read of the current window (with the group's data when stale).
    func read() -> ChatEffect { .readWindow(window, group: conversation.isGroup && groupStale) }

    func refreshMedia() -> ChatEffect {
        .refreshMedia(messages.filter { $0.objectKey != nil || $0.multiObjectKeys != nil })
    }

    /// After a read: every picture signed and fetched again when asked
    /// (`mediaAfterRead`), else only those of messages new to the window.
    mutating func mediaWanted() -> [ChatEffect] {
        let media = messages.filter { $0.objectKey != nil || $0.multiObjectKeys != nil }
        let wanted = mediaAfterRead ? media : media.filter { !mediaAsked.contains($0.id) }
        mediaAfterRead = false
        mediaAsked.formUnion(wanted.map(\.id))
        return wanted.isEmpty ? [] : [.refreshMedia(wanted)]
    }

    mutating func show(_ r: WindowRead) {
        page = r.page
        cachedKeys = r.cachedKeys
        // A full window may have older messages below it, stored or not:
        // messages that arrived while the chat was open slide the window up
        // past ones it showed, and those must stay reachable by scrolling
        // back even after the server said it has nothing older (paging back
        // asks the store first, and turns this off again at the oldest).
        if r.page.messages.count >= window.count { hasMoreHistory = true }
        if let c = r.conversation { conversation = c }
        if let g = r.group {
            senderNames = g.senderNames
            members = g.members
            group = g.info ?? group
            groupStale = false
        }
        derive()
        // The banner is counted from the same read as the messages, so the
        // two never disagree on screen (a scrolled-up window is anchored and
        // grows, so everything newer is in it); older messages a sync brings
        // do not count.
        if let after = bannerAfterSeq {
            newMessageBannerCount = page.messages.filter {
                ($0.seq ?? 0) > after && $0.sendID != me && !$0.isControl && !ContentType.isNotice($0.contentType)
            }.count
        }
        anchor()
    }

    /// `messages` from the page, with progress and fresh URLs over it.
    mutating func derive() {
        var mapped = page.messages.map { record -> ChatMessage in
            var m = record.chatMessage(myImUid: me)
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
    }

    /// Scrolled up, the window keeps everything from its oldest message on,
    /// so what arrives grows it instead of sliding the reader's place away
    /// (and what paging back or a search hit brought stays). The page just
    /// read already holds those messages: nothing is read again.
    mutating func anchor() {
        guard !isAtBottom, let low = page.lowestSeq, low < window.keepFrom ?? .max else { return }
        window = ChatWindow(count: window.count, keepFrom: low)
    }

    /// The user reached the newest message (the banner goes, everything is
    /// read) or scrolled away from it (new messages count in the banner).
    mutating func scrolled(toBottom: Bool) -> [ChatEffect] {
        guard isAtBottom != toBottom else { return [] }
        isAtBottom = toBottom
        bannerAfterSeq = toBottom ? nil : (page.messages.compactMap(\.seq).max() ?? 0)
        // Back at the bottom the window keeps its size and slides again.
        let new = ChatWindow(count: toBottom ? max(window.count, page.messages.count) : window.count,
                             keepFrom: toBottom ? nil : page.lowestSeq)
        var effects: [ChatEffect] = []
        if new != window {
            window = new
            effects.append(read())
        }
        if toBottom {
            newMessageBannerCount = 0
            effects.append(.markRead)
        }
        return effects
    }

    /// The messages and the header (presence too) follow the store's
    /// change signal; a sync is read for what the signal does not cover:
    /// the group's names and members, a friend's remark.
    mutating func synced(_ update: SyncUpdate) -> [ChatEffect] {
        guard isVisible, case .applied(let changes) = update else { return [] }
        var effects: [ChatEffect] = []
        if let gid = conversation.groupId, changes.groupIds.contains(gid) { groupStale = true }
        if groupStale && conversation.isGroup || changes.peopleChanged && !conversation.isGroup { effects.append(read()) }
        if (changes.incoming[id] ?? 0) > 0 && isAtBottom { effects.append(.markRead) }
        return effects
    }

    /// What `@` mentions a text sends: only names still in the text count
    /// (one deleted after completing is not a mention); `@all` only from
    /// the owner. nil: a plain text.
    public func mention(_ text: String, mentioned: [String], atAll: Bool) -> MentionPayload? {
        let kept = mentioned.filter { id in
            guard let uid = ConversationIDHelper.uid(fromImUid: id), let m = members.first(where: { $0.uid == uid }) else { return false }
            return text.contains("@" + m.username)
        }
        guard !kept.isEmpty || atAll else { return nil }
        return MentionPayload(text: text, atUserIDs: Array(Set(kept)).sorted(), atAll: atAll && isOwner)
    }

    /// Whether the flash image `messageId` may be shown now (once, not mine).
    public func mayView(flash messageId: String) -> Bool {
        guard let m = messages.first(where: { $0.id == messageId }) else { return false }
        return m.isFlash && !m.isMe && !m.isDestroyed
    }

    /// Seed §六: walks oldest to newest and puts a `MM-dd HH:mm` marker
    /// before a message more than five minutes after the last marker, in
    /// the user's time zone (`utcOffsetSeconds` fixes one, for tests).
    public static func insertTimeMarkers(into msgs: [ChatMessage], utcOffsetSeconds: Int? = nil) -> [ChatMessage] {
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
}

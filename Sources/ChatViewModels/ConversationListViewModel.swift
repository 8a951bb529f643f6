import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Seed §五: the conversation list. Shows the store's list at once, then
/// refreshes from the server, then follows the store: every commit that
/// changes the conversation table, whoever made it (a sync pull, the send
/// queue, an action here), reaches `conversations` through a ValueObservation.
@MainActor
public final class ConversationListViewModel {
    public private(set) var conversations: [Conversation] = [] {
        // Counts read back from disk are not trusted to be small: clamped, then summed.
        didSet {
            // By index: a closure over the elements copied each row.
            var sum = 0
            // Muted conversations keep their own count but stay out of the total.
            for i in conversations.indices where !conversations[i].isMuted { sum += WireRange.count(conversations[i].unreadCount) }
            totalUnread = sum
        }
    }
    /// Unread messages over the conversations not muted (the list title), summed once
    /// per list change rather than on every frame.
    public private(set) var totalUnread = 0
    public private(set) var isLoading = false
    /// A transient error in plain words, for the status line.
    public var errorMessage: String?
    /// Called after every change (the UI redraws).
    public var onChange: (() -> Void)?

    let session: Session
    let localizer: Localizer
    private var following: Task<Void, Never>?
    /// The store's list as last read or observed.
    private var stored: [Conversation] = []
    /// Changes shown before the server has agreed, by conversation id: they
    /// stay over whatever the store says until their action is done.
    private var pending: [String: (inout [Conversation]) -> Void] = [:]

    public init(session: Session, localizer: Localizer = .current) {
        self.session = session
        self.localizer = localizer
    }

    public func onAppear() async {
        loadFromStore()
        isLoading = conversations.isEmpty
        changed()
        await refresh()
        isLoading = false
        changed()
        startListening()
    }

    func changed() { onChange?() }

    public func loadFromStore() {
        if let list = try? session.reader.conversationList(localizer: localizer, useCache: true) { show(list) }
    }

    /// The store's list with the changes still waiting for the server over it.
    func show(_ list: [Conversation]) {
        stored = list
        var shown = list
        for change in pending.values { change(&shown) }
        conversations = Self.sorted(shown)
    }

    /// Shows `change` at once and keeps it over the store while `action`
    /// runs; then shows the store, which holds the server's answer, or
    /// without the change and with the server's reason if it refused.
    func optimistically(_ id: String, _ change: @escaping (inout [Conversation]) -> Void,
                        _ action: () async throws -> Void) async {
        pending[id] = change
        show(stored)
        changed()
        do { try await action() } catch { errorMessage = describe(error) }
        pending[id] = nil
        loadFromStore()
        changed()
    }

    /// Pulls the server's list, fills missing profiles, reloads.
    public func refresh() async {
        do {
            try await session.refreshConversations()
            loadFromStore()
            await enrichProfiles()
        } catch {
            errorMessage = describe(error)
        }
        loadFromStore()
        changed()
    }

    /// Follows the store's list until `stopListening` (or the end of this view model).
    func startListening() {
        guard following == nil else { return }
        let changes = session.reader.conversationListChanges(localizer: localizer)
        following = Task { @MainActor [weak self] in
            do {
                for try await list in changes {
                    guard let self else { return }
                    self.show(list)
                    self.changed()
                }
            } catch {
                self?.errorMessage = self?.describe(error)
                self?.changed()
            }
        }
    }

    public func stopListening() {
        following?.cancel()
        following = nil
    }

    isolated deinit { following?.cancel() }

    /// `Conversation.listOrder`: pinned first (the latest pinned first),
    /// then the newest message first (seed §五 `sorted`).
    public static func sorted(_ list: [Conversation]) -> [Conversation] {
        // The store hands the list over in this order already (its index),
        // so a linear check usually suffices: sorting a thousand rows
        // copied every row and was a tenth of opening a chat on the
        // million-message store (the read receipt reloads the list).
        var inOrder = true
        for i in list.indices.dropFirst() where precedes(list[i], list[i - 1]) {
            inOrder = false
            break
        }
        return inOrder ? list : list.sorted(by: precedes)
    }

    static func precedes(_ a: Conversation, _ b: Conversation) -> Bool { Conversation.listOrder(a, b) }

    /// Optimistic; put back with the server's reason if it refuses.
    public func pinConversation(id: String, isPinned: Bool) async {
        guard conversations.contains(where: { $0.id == id }) else { return }
        await optimistically(id, { list in
            if let i = list.firstIndex(where: { $0.id == id }) {
                list[i].isPinned = isPinned
                // First among the pinned, as the store will have it.
                list[i].pinnedAt = isPinned ? Conversation.pinTime(now: Int(Date().timeIntervalSince1970 * 1000),
                                                                   latestPin: list.map(\.pinnedAt).max() ?? 0) : 0
            }
        }) {
            try await session.pin(id, isPinned)
        }
    }

    /// Mute or unmute, shown at once and put back if the server refuses.
    public func muteConversation(id: String, isMuted: Bool) async {
        guard conversations.contains(where: { $0.id == id }) else { return }
        await optimistically(id, { list in
            if let i = list.firstIndex(where: { $0.id == id }) { list[i].isMuted = isMuted }
        }) {
            try await session.mute(id, isMuted)
        }
    }

    /// Leaves a group (it stays listed, marked, until deleted); with
    /// `delete`, also takes it off the list.
    public func leaveGroup(id: String, delete: Bool) async {
        guard let gid = ConversationIDHelper.groupId(id) else { return }
        do {
            try await session.leaveGroup(gid)
        } catch let e as APIError where e.code == .forbidden {
            // Already out: deleting is all that is left.
        } catch {
            errorMessage = describe(error)
            changed()
            return
        }
        if delete { await deleteConversation(id: id) } else { loadFromStore(); changed() }
    }

    /// Creates a group with me as owner and `memberIds` in it; returns its conversation id.
    public func createGroup(name: String, uniqueName: String, memberIds: [Int] = []) async -> String? {
        do {
            let info = try await session.createGroup(CreateGroupRequest(name: name, uniqueName: uniqueName, memberIds: memberIds))
            loadFromStore()
            changed()
            return info.conversationId
        } catch {
            errorMessage = describe(error)
            changed()
            return nil
        }
    }

    /// Joins a group by its unique name; returns its conversation id.
    public func joinGroup(uniqueName: String) async -> String? {
        do {
            let summary = try await session.joinGroup(uniqueName: uniqueName)
            loadFromStore()
            changed()
            return summary.conversationId
        } catch {
            errorMessage = describe(error)
            changed()
            return nil
        }
    }

    /// Optimistic removal; the store is cleared only once the server agrees.
    public func deleteConversation(id: String) async {
        guard conversations.contains(where: { $0.id == id }) else { return }
        await optimistically(id, { list in list.removeAll { $0.id == id } }) {
            try await session.deleteConversation(id)
        }
    }

    /// Profiles from the cache; only the peers it lacks go to `openim-batch`.
    public func enrichProfiles() async {
        await session.sync.fillProfiles(for: nil)
        loadFromStore()
    }

    /// Conversations whose name contains `query` (case-insensitive).
    public func filtered(by query: String) -> [Conversation] { Self.filter(conversations, by: query) }

    nonisolated public static func filter(_ list: [Conversation], by query: String) -> [Conversation] {
        let q = query.trimmingCharacters(in: .whitespaces)
        guard !q.isEmpty else { return list }
        return list.filter { $0.nickname.localizedCaseInsensitiveContains(q) }
    }

    public func searchUsers(_ query: String) async -> [UserBasicInfo] {
        do { return try await session.searchUsers(query) } catch {
            errorMessage = describe(error)
            changed()
            return []
        }
    }

    /// Starts (or finds) the chat with `user`; nil with an error when refused.
    public func startConversation(with user: UserBasicInfo) async -> Conversation? {
        do {
            let id = try await session.startConversation(with: user)
            loadFromStore()
            changed()
            return try session.reader.conversation(id: id, localizer: localizer)
        } catch {
            errorMessage = describe(error)
            changed()
            return nil
        }
    }

    /// Replies to my signals; empty (with the reason as an error) when the
    /// server cannot be asked.
    public func signalInbox() async -> [SignalInboxItem] {
        do { return try await session.signalInbox() } catch {
            errorMessage = describe(error)
            changed()
            return []
        }
    }

    /// Opens the chat a signal reply started: the quote of the signal goes
    /// with the first message (seed: signal context).
    public func openSignal(_ item: SignalInboxItem) async -> Conversation? {
        guard let c = await startConversation(with: item.from) else { return nil }
        try? session.noteSignalContext(c.id, of: item)
        return (try? session.reader.conversation(id: c.id, localizer: localizer)) ?? c
    }

    /// The connection is back: the send queue goes on.
    public func resumeSending() async {
        await session.sendQueue.wake()
    }

    func describe(_ error: any Error) -> String {
        if let e = error as? APIError { return e.description }
        return "\(error)"
    }
}

import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Seed §五's conversation list as a value: the store's list, with the
/// changes shown before the server agreed laid over it. `update` is the
/// only thing that changes it; `ListEffects` performs what it asks for.
public struct ListState: Sendable {
    /// Pinned first (the latest pinned first), then the newest message first.
    public private(set) var conversations: [Conversation] = []
    /// Unread messages over the conversations not muted (the list title),
    /// summed once per list change rather than on every frame.
    public private(set) var totalUnread = 0
    public var isLoading = false
    /// The store's list as last read or observed.
    var stored: [Conversation] = []
    /// Changes shown before the server has agreed, by conversation id: they
    /// stay over whatever the store says until their action is done.
    var pending: [String: Change] = [:]
    /// Between appearing and the server's list: an empty list is "loading".
    var refreshing = false

    /// What the user changed in a row before the server answered.
    public enum Change: Sendable, Equatable {
        /// `at`: when the pin was asked for (Unix ms): the row goes first among the pinned.
        case pin(Bool, at: Int)
        case mute(Bool)
        case delete
    }

    /// An empty list, or (screen tests) one drawn as given.
    public init(conversations: [Conversation] = [], isLoading: Bool = false) {
        self.isLoading = isLoading
        show(conversations)
    }

    /// The store's list with the changes still waiting for the server over it.
    mutating func show(_ list: [Conversation]) {
        stored = list
        var shown = list
        for (id, change) in pending.sorted(by: { $0.key < $1.key }) { Self.apply(change, to: id, in: &shown) }
        conversations = Self.sorted(shown)
        // Counts read back from disk are not trusted to be small: clamped, then
        // summed; muted conversations keep their own count but stay out of the total.
        var sum = 0
        for i in conversations.indices where !conversations[i].isMuted { sum += WireRange.count(conversations[i].unreadCount) }
        totalUnread = sum
    }

    static func apply(_ change: Change, to id: String, in list: inout [Conversation]) {
        switch change {
        case .delete:
            list.removeAll { $0.id == id }
        case .mute(let muted):
            if let i = list.firstIndex(where: { $0.id == id }) { list[i].isMuted = muted }
        case .pin(let pinned, let at):
            guard let i = list.firstIndex(where: { $0.id == id }) else { return }
            list[i].isPinned = pinned
            // First among the pinned, as the store will have it.
            list[i].pinnedAt = pinned ? Conversation.pinTime(now: at, latestPin: list.map(\.pinnedAt).max() ?? 0) : 0
        }
    }

    /// `Conversation.listOrder`: pinned first (the latest pinned first),
    /// then the newest message first (seed §五 `sorted`).
    public static func sorted(_ list: [Conversation]) -> [Conversation] {
        // The store hands the list over in this order already (its index),
        // so a linear check usually suffices: sorting a thousand rows
        // copied every row and was a tenth of opening a chat on the
        // million-message store (the read receipt reloads the list).
        var inOrder = true
        for i in list.indices.dropFirst() where Conversation.listOrder(list[i], list[i - 1]) {
            inOrder = false
            break
        }
        return inOrder ? list : list.sorted(by: Conversation.listOrder)
    }

    /// Conversations whose name contains `query` (case-insensitive).
    public static func filter(_ list: [Conversation], by query: String) -> [Conversation] {
        let q = query.trimmingCharacters(in: .whitespaces)
        guard !q.isEmpty else { return list }
        return list.filter { $0.nickname.localizedCaseInsensitiveContains(q) }
    }
}

/// Something that happened to the list.
public enum ListEvent: Sendable {
    /// The list came on screen: the store's list at once, then the server's.
    case appear
    /// The store's list (a read, or the observation after a commit).
    case stored([Conversation])
    /// The server's list was fetched (and stored).
    case refreshed
    /// The user changed a row: shown at once, kept until the server answers.
    case change(id: String, ListState.Change)
    /// The server answered the change of `id` (agreed or refused).
    case settled(id: String)
    /// Something failed, or worked and shows nowhere else: for the host to word.
    case told(Told)
}

/// The I/O the list's update asks for.
public enum ListEffect: Sendable, Equatable {
    case readList
    /// Fetch the server's list and the profiles it lacks.
    case refresh
    /// Follow the store's list.
    case follow
    /// Ask the server for a row's change (then `.settled`).
    case ask(id: String, ListState.Change)
}

extension ListState {
    public mutating func update(_ event: ListEvent) -> [ListEffect] {
        switch event {
        case .appear:
            refreshing = true
            isLoading = conversations.isEmpty
            return [.readList, .refresh]
        case .stored(let list):
            show(list)
            isLoading = refreshing && conversations.isEmpty
            return []
        case .refreshed:
            refreshing = false
            isLoading = false
            return [.readList, .follow]
        case .change(let id, let change):
            guard conversations.contains(where: { $0.id == id }) else { return [] }
            pending[id] = change
            show(stored)
            return [.ask(id: id, change)]
        case .settled(let id):
            pending[id] = nil
            show(stored)
            return [.readList]
        case .told:
            return []
        }
    }
}

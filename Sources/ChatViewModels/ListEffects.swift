import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Performs the list's effects and the actions started from it (groups,
/// new chats, signals). Holds nothing but the session; outcomes go back
/// as `ListEvent`s, or as the values the actions return.
@MainActor
public struct ListEffects {
    public typealias Emit = @MainActor (ListEvent) async -> Void

    let session: Session
    let localizer: Localizer

    public init(session: Session, localizer: Localizer = .current) {
        self.session = session
        self.localizer = localizer
    }

    /// The store's list now (the first frame shows it before any network).
    public func read() -> [Conversation]? {
        try? session.reader.conversationList(localizer: localizer, useCache: true)
    }

    public func perform(_ effect: ListEffect, emit: Emit) async {
        switch effect {
        case .readList:
            if let list = read() { await emit(.stored(list)) }
        case .refresh:
            do {
                try await session.refreshConversations()
                if let list = read() { await emit(.stored(list)) }
                // Profiles from the cache; only the peers it lacks go to `openim-batch`.
                await session.sync.fillProfiles(for: nil)
            } catch {
                await emit(.told(.failed(Failure(error))))
            }
            await emit(.refreshed)
        case .follow:
            break
        case .ask(let id, let change):
            do {
                switch change {
                case .pin(let pinned, _): try await session.pin(id, pinned)
                case .mute(let muted): try await session.mute(id, muted)
                case .delete: try await session.deleteConversation(id)
                }
            } catch {
                await emit(.told(.failed(Failure(error))))
            }
            await emit(.settled(id: id))
        }
    }

    /// Follows the store's list: every commit that changes the conversation
    /// table, whoever made it (a sync pull, the send queue, an action here).
    /// Ends when the returned task is cancelled.
    public func follow(_ emit: @escaping Emit) -> Task<Void, Never> {
        let changes = session.reader.conversationListChanges(localizer: localizer)
        return Task { @MainActor in
            do {
                for try await list in changes {
                    if Task.isCancelled { return }
                    await emit(.stored(list))
                }
            } catch {
                await emit(.told(.failed(Failure(error))))
            }
        }
    }

    // MARK: - Actions started from the list

    /// Leaves a group (it stays listed, marked, until deleted); true when
    /// it is out (or already was).
    public func leaveGroup(id: String, emit: Emit) async -> Bool {
        guard let gid = ConversationIDHelper.groupId(id) else { return false }
        do {
            try await session.leaveGroup(gid)
        } catch let e as APIError where e.code == .forbidden {
            // Already out: deleting is all that is left.
        } catch {
            await emit(.told(.failed(Failure(error))))
            return false
        }
        if let list = read() { await emit(.stored(list)) }
        return true
    }

    /// Creates a group with me as owner and `memberIds` in it; returns its
    /// conversation id. Who was left out is said (`.notice`), never why.
    public func createGroup(name: String, uniqueName: String, memberIds: [Int], emit: Emit) async -> String? {
        do {
            let info = try await session.createGroup(CreateGroupRequest(name: name, uniqueName: uniqueName, memberIds: memberIds))
            if let list = read() { await emit(.stored(list)) }
            let names = await session.notAddedNames(info)
            if !names.isEmpty { await emit(.told(.notAdded(names))) }
            return info.conversationId
        } catch {
            await emit(.told(.failedTo(action: "error.createGroup", Failure(error))))
            return nil
        }
    }

    /// Joins a group by its unique name; returns its conversation id.
    public func joinGroup(uniqueName: String, emit: Emit) async -> String? {
        do {
            let summary = try await session.joinGroup(uniqueName: uniqueName)
            if let list = read() { await emit(.stored(list)) }
            return summary.conversationId
        } catch {
            await emit(.told(.failedTo(action: "error.joinGroup", Failure(error))))
            return nil
        }
    }

    public func searchUsers(_ query: String, emit: Emit) async -> [UserBasicInfo] {
        do { return try await session.searchUsers(query) } catch {
            await emit(.told(.failed(Failure(error))))
            return []
        }
    }

    /// Starts (or finds) the chat with `user`; nil with an error when refused.
    public func startConversation(with user: UserBasicInfo, emit: Emit) async -> Conversation? {
        await open(emit) { try await self.session.startConversation(with: user) }
    }

    /// The conversation `start` made or found, once the list shows it; nil (and the reason) when it failed.
    private func open(_ emit: Emit, _ start: () async throws -> String) async -> Conversation? {
        do {
            let id = try await start()
            if let list = read() { await emit(.stored(list)) }
            return try session.reader.conversation(id: id, localizer: localizer)
        } catch {
            await emit(.told(.failed(Failure(error))))
            return nil
        }
    }

    /// v4: starts (or finds) the secret chat with `user`.
    public func startSecretChat(with user: UserBasicInfo, emit: Emit) async -> Conversation? {
        await open(emit) { try await self.session.startSecretChat(with: user) }
    }

    /// Replies to my signals; empty (with the reason as an error) when the
    /// server cannot be asked.
    /// My favourites, newest first; nil (and the reason) when the server cannot say.
    public func favorites(emit: Emit) async -> [Favorite]? {
        do { return try await session.favorites() } catch {
            await emit(.told(.failed(Failure(error))))
            return nil
        }
    }

    public func removeFavorite(_ id: Int, emit: Emit) async {
        do {
            try await session.removeFavorite(id)
            await emit(.told(.favoriteRemoved))
        } catch {
            await emit(.told(.failed(Failure(error))))
        }
    }

    public func signalInbox(emit: Emit) async -> [SignalInboxItem] {
        do { return try await session.signalInbox() } catch {
            await emit(.told(.failed(Failure(error))))
            return []
        }
    }

    /// Opens the chat a signal reply started: the quote of the signal goes
    /// with the first message (seed: signal context).
    public func openSignal(_ item: SignalInboxItem, emit: Emit) async -> Conversation? {
        guard let c = await startConversation(with: item.from, emit: emit) else { return nil }
        try? session.noteSignalContext(c.id, of: item)
        return (try? session.reader.conversation(id: c.id, localizer: localizer)) ?? c
    }

    /// The connection is back: the send queue goes on.
    public func resumeSending() async {
        await session.sendQueue.wake()
    }

}

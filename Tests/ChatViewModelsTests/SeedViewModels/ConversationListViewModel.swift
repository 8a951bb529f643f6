import ChatCore
import ChatStore
@testable import ChatSync
@testable import ChatViewModels
import Foundation

/// Seed §五's ConversationListViewModel for a host without its own loop
/// (tests, a script): it runs `ListState.update` and `ListEffects` and keeps
/// nothing the state does not have. The full-screen client runs the same
/// update inside its own `AppState`.
@MainActor
final class ConversationListViewModel {
    private(set) var state = ListState()
    let effects: ListEffects
    /// The last failure in plain words, for the status line.
    var errorMessage: String?
    /// The words of what the effects tell.
    let localizer: Localizer
    /// Called after every change (the UI redraws).
    var onChange: (() -> Void)?
    private var following: Task<Void, Never>?
    /// The clock a pin is stamped with (tests fix it).
    var nowMs: () -> Int = { Int(Date().timeIntervalSince1970 * 1000) }

    init(session: Session, localizer: Localizer = .current) {
        effects = ListEffects(session: session, localizer: localizer)
        self.localizer = localizer
    }

    var conversations: [Conversation] { state.conversations }
    var totalUnread: Int { state.totalUnread }
    var isLoading: Bool { state.isLoading }

    /// One event: the state changes, then its effects run; returns when
    /// the chain is done.
    func send(_ event: ListEvent) async {
        if case .told(let told) = event, told.isFailure { errorMessage = told.words(localizer) }
        let wanted = state.update(event)
        onChange?()
        for effect in wanted {
            if case .follow = effect {
                guard following == nil else { continue }
                following = effects.follow { [weak self] in await self?.send($0) }
            } else {
                await effects.perform(effect, emit: emit)
            }
        }
    }

    private var emit: ListEffects.Emit { { [weak self] in await self?.send($0) } }

    func onAppear() async { await send(.appear) }

    func refresh() async { await effects.perform(.refresh, emit: emit) }

    isolated deinit { following?.cancel() }

    func pinConversation(id: String, isPinned: Bool) async {
        await send(.change(id: id, .pin(isPinned, at: nowMs())))
    }

    func muteConversation(id: String, isMuted: Bool) async { await send(.change(id: id, .mute(isMuted))) }

    /// Optimistic removal; the store is cleared only once the server agrees.
    func deleteConversation(id: String) async { await send(.change(id: id, .delete)) }

    /// Leaves a group; with `delete`, also takes it off the list.
    func leaveGroup(id: String, delete: Bool) async {
        guard await effects.leaveGroup(id: id, emit: emit), delete else { return }
        await deleteConversation(id: id)
    }

    func createGroup(name: String, uniqueName: String, memberIds: [Int] = []) async -> String? {
        await effects.createGroup(name: name, uniqueName: uniqueName, memberIds: memberIds, emit: emit)
    }

    func joinGroup(uniqueName: String) async -> String? { await effects.joinGroup(uniqueName: uniqueName, emit: emit) }
    func searchUsers(_ query: String) async -> [UserBasicInfo] { await effects.searchUsers(query, emit: emit) }

    func startConversation(with user: UserBasicInfo) async -> Conversation? {
        await effects.startConversation(with: user, emit: emit)
    }

    func signalInbox() async -> [SignalInboxItem] { await effects.signalInbox(emit: emit) }
    func openSignal(_ item: SignalInboxItem) async -> Conversation? { await effects.openSignal(item, emit: emit) }
    func resumeSending() async { await effects.resumeSending() }

    /// Conversations whose name contains `query` (case-insensitive).
    func filtered(by query: String) -> [Conversation] { ListState.filter(conversations, by: query) }
    nonisolated static func filter(_ list: [Conversation], by query: String) -> [Conversation] {
        ListState.filter(list, by: query)
    }
    nonisolated static func sorted(_ list: [Conversation]) -> [Conversation] { ListState.sorted(list) }
}

import ChatCore
import ChatStore
@testable import ChatSync
@testable import ChatViewModels
import Foundation

/// Seed §六's ConversationViewModel for a host without its own loop (tests,
/// a script): it runs `ChatState.update` and `ChatEffects` for one chat and
/// keeps nothing the state does not have. The full-screen client runs the
/// same update inside its own `AppState` instead.
@MainActor
final class ConversationViewModel {
    static let pageSize = ChatState.pageSize

    private(set) var state: ChatState
    let effects: ChatEffects
    /// The last failure in plain words (the full-screen client puts it on the status line).
    var errorMessage: String?
    /// The words of what the effects tell.
    let localizer: Localizer
    /// Called after every change.
    var onChange: (() -> Void)?
    /// Every effect is awaited but downloads and read receipts.
    private let tasks = ChatTasks(serverWorkBeside: false, followSync: true)

    init(conversation: Conversation, session: Session, localizer: Localizer = .current) {
        state = ChatState(conversation: conversation, me: session.credentials.imUid)
        effects = ChatEffects(session: session, localizer: localizer)
        self.localizer = localizer
    }

    var conversation: Conversation { state.conversation }
    var messages: [ChatMessage] { state.messages }
    var isLoading: Bool { state.isLoading }
    var hasMoreHistory: Bool { state.hasMoreHistory }
    var newMessageBannerCount: Int { state.newMessageBannerCount }
    var isAtBottom: Bool { state.isAtBottom }
    var senderNames: [String: String] { state.senderNames }
    var members: [GroupMember] { state.members }
    var group: GroupInfo? { state.group }
    var isOwner: Bool { state.isOwner }
    var myImUid: String { state.me }

    // MARK: - The loop

    /// One event: the state changes, then its effects run (their answers
    /// come back here); returns when the chain is done, except for what
    /// runs beside (downloads, read receipts).
    func send(_ event: ChatEvent) async {
        if case .told(let told) = event, told.isFailure { errorMessage = told.words(localizer) }
        let wanted = state.update(event)
        onChange?()
        for effect in wanted { await perform(effect) }
    }

    func perform(_ effect: ChatEffect) async {
        await tasks.run(effect, for: state.conversation, with: effects, emit: emit)
    }

    /// Waits for what runs beside (tests).
    func settle() async { await tasks.settle() }

    // MARK: - Seed §六's calls

    func onAppear() async { await send(.appear) }
    func onDisappear(draft: String?) async { await send(.disappear(draft: draft)) }

    /// Reads the window again now.
    func reload() {
        guard case .readWindow(let window, let group) = state.read(),
              let r = effects.read(window, of: state.conversation, group: group) else { return }
        _ = state.update(.windowRead(r))
        onChange?()
    }

    func loadMoreHistory() async { await send(.loadMore) }
    func scrolled(toBottom: Bool) async { await send(.scrolled(toBottom: toBottom)) }
    func reveal(seq: Int) async { await perform(.reveal(seq: seq)) }
    func markRead() async { await perform(.markRead) }
    func refreshMembers() async { await perform(.refreshMembers) }
    func handle(_ update: SyncUpdate) async { await send(.sync(update)) }

    /// False when the message could not be queued (the input should keep it).
    @discardableResult
    func sendText(_ text: String) async -> Bool {
        await effects.sendText(text, in: state.conversation, emit: emit)
    }

    @discardableResult
    func sendMention(_ text: String, mentioned: [String], atAll: Bool) async -> Bool {
        await effects.sendMention(text, mentioned: mentioned, atAll: atAll, in: state, emit: emit)
    }

    /// Files sent as `kind` (`/image`, `/file`, … : `OutgoingKinds`).
    func send(_ kind: OutgoingKind, paths: [String]) async {
        await effects.send(kind, paths: paths, in: state.conversation, emit: emit)
    }

    func retry(messageId: String) async { await effects.retry(messageId: messageId, emit: emit) }
    func discard(messageId: String) async { await effects.discard(messageId: messageId, emit: emit) }

    func revokeMessage(id messageId: String) async {
        guard let m = state.messages.first(where: { $0.id == messageId }), m.isMe, !m.isRecalled else { return }
        await send(.revoking(messageId: messageId))
        await effects.revoke(messageId: messageId, emit: emit)
    }

    func markFlashViewed(id messageId: String) async {
        guard state.mayView(flash: messageId) else { return }
        await effects.flashViewed(messageId: messageId, in: state.conversation, emit: emit)
    }

    func clearHistory() async { await effects.clearHistory(of: state.conversation, emit: emit) }
    func saveDraft(_ text: String?) { effects.saveDraft(text, of: state.conversation) }
    func search(_ query: String, limit: Int = 50) -> [StoredMessage] { effects.search(query, in: state.conversation, limit: limit) }

    func invite(_ names: [String]) async { await group(.invite(names)) }
    func kick(_ name: String) async { await group(.kick(name)) }
    func kick(uid: Int) async { await group(.kickMember(uid: uid)) }
    func rename(to name: String) async { await group(.rename(name)) }

    func group(_ command: ChatEffects.GroupChange) async {
        guard state.conversation.isGroup else { return }
        await effects.group(command, in: state.conversation, members: state.members, emit: emit)
    }

    private var emit: ChatEffects.Emit { { [weak self] in await self?.send($0) } }
}

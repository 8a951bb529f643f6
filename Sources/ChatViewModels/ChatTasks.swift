import ChatCore

/// How a host runs an open chat's effects, in one place for the
/// full-screen client and `ConversationViewModel`: the subscriptions; the
/// server's part of opening the chat and the member list (beside the keys
/// in the full-screen client, so a dead server never holds up the next
/// key; awaited where a caller wants the chain done, as tests do);
/// downloads, one run at a time; read receipts (and, beside the keys, the
/// signal quote), which are never cancelled because the server must hear
/// them whatever the user does next. Everything else is awaited. Closing
/// the chat (`.stopFollowing`) cancels what belongs to it.
@MainActor
public final class ChatTasks {
    /// Whether the server's part of opening a chat runs beside the caller.
    let serverWorkBeside: Bool
    /// Whether following the chat also reacts to sync updates itself
    /// (a host without its own sync dispatch, `ConversationViewModel`).
    let followSync: Bool
    private var following: ChatFollowing?
    private var beside: [Task<Void, Never>] = []
    private var media: Task<Void, Never>?
    private var receipts: [Int: Task<Void, Never>] = [:]
    private var nextReceipt = 0
    /// The server's part of the latest opening (tests await it).
    public private(set) var appearing: Task<Void, Never>?

    public init(serverWorkBeside: Bool, followSync: Bool) {
        self.serverWorkBeside = serverWorkBeside
        self.followSync = followSync
    }

    public func run(_ effect: ChatEffect, for c: Conversation, with effects: ChatEffects,
                    emit: @escaping ChatEffects.Emit) async {
        switch effect {
        case .stopFollowing:
            stop()
            await effects.perform(effect, for: c, emit: emit)
        case .follow:
            following?.cancel()
            following = effects.follow(sync: followSync, emit)
        case .fillFromServer, .refreshMembers:
            guard serverWorkBeside else { return await effects.perform(effect, for: c, emit: emit) }
            let task = Task { await effects.perform(effect, for: c, emit: emit) }
            beside.removeAll { $0.isCancelled }
            beside.append(task)
            if case .fillFromServer = effect { appearing = task }
        case .refreshMedia:
            media?.cancel()
            media = Task {
                await effects.perform(effect, for: c) { event in if !Task.isCancelled { await emit(event) } }
            }
        case .sendSignalQuote where !serverWorkBeside:
            await effects.perform(effect, for: c, emit: emit)
        case .sendReadMark, .sendSignalQuote:
            let id = nextReceipt
            nextReceipt += 1
            receipts[id] = Task {
                await effects.perform(effect, for: c, emit: emit)
                self.receipts[id] = nil
            }
        default:
            await effects.perform(effect, for: c, emit: emit)
        }
    }

    /// Cancels the chat's subscriptions and the work that belongs to it
    /// (not its receipts).
    public func stop() {
        following?.cancel()
        following = nil
        for t in beside { t.cancel() }
        beside = []
        media?.cancel()
        media = nil
        appearing = nil
    }

    /// Waits for what runs beside: downloads and receipts (tests).
    public func settle() async {
        await media?.value
        for t in beside { await t.value }
        while let (id, t) = receipts.first {
            await t.value
            receipts[id] = nil
        }
    }
}

import ChatCore
import Foundation

/// Signals: a question to everyone, replies to it in the asker's inbox,
/// and opening a chat with one who replied.
final class SignalService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let conversations: ConversationService
    let syncLog: SyncLogService
    let notices: CommitNotifier

    init(storage: any ChatStorage, config: ServerConfig, conversations: ConversationService, syncLog: SyncLogService,
         notices: CommitNotifier) {
        self.storage = storage
        self.config = config
        self.conversations = conversations
        self.syncLog = syncLog
        self.notices = notices
    }

    func create(caller: Int, content: String) throws -> Int {
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIFailure.invalid("content must not be empty") }
        guard content.count <= config.maxTextCharacters else { throw APIFailure(.tooLarge, "signal is too long") }
        let now = config.clock.nowMs()
        return try storage.write { tx in
            try Quotas(config: config).take(.signals, by: caller, in: tx)
            return try tx.signals.insertSignal(owner: caller, content: content, createdAt: now)
        }
    }

    /// Returns the reply's id (a `receive_id`).
    func reply(caller: Int, signalId: Int, content: String) throws -> String {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIFailure.invalid("content must not be empty")
        }
        guard content.count <= config.maxTextCharacters else { throw APIFailure(.tooLarge, "reply is too long") }
        let now = config.clock.nowMs()
        return try storage.write { tx in
            guard let owner = try tx.signals.owner(ofSignal: signalId) else { throw APIFailure.notFound("no such signal") }
            guard owner != caller else { throw APIFailure.forbidden("you cannot reply to your own signal") }
            return String(try tx.signals.insertReply(signalId: signalId, from: caller, content: content, createdAt: now))
        }
    }

    func inbox(caller: Int) throws -> [SignalInboxItem] {
        try storage.read { tx in
            try tx.signals.inbox(owner: caller, limit: 200).compactMap { r in
                guard let from = try tx.users.info(uid: r.fromUid) else { return nil }
                return SignalInboxItem(receiveId: String(r.id), signalId: r.signalId, signalContent: r.signalContent,
                                       replyContent: r.replyContent, from: from, isImOpened: r.isImOpened)
            }
        }
    }

    /// Opens a chat with the one who replied: the conversation exists and
    /// is marked as begun from a signal.
    func openIM(caller: Int, receiveId: String) throws {
        guard let id = Int(receiveId) else { throw APIFailure.invalid("receive_id must be a decimal number") }
        let cursor = try storage.write { tx -> Int? in
            guard let (from, owner) = try tx.signals.parties(ofReply: id) else { throw APIFailure.notFound("no such signal reply") }
            guard owner == caller else { throw APIFailure.forbidden("that reply is not to your signal") }
            try tx.signals.markOpened(reply: id)
            let conv = ConversationIDHelper.make(myUid: owner, targetUid: from)
            try self.conversations.ensure(conv, caller: owner, peer: from, in: tx)
            try tx.conversations.markOpened(conv)
            return try self.syncLog.append(.conversation(try self.conversations.summary(conv, for: caller, in: tx)),
                                           to: caller, in: tx)
        }
        if let cursor { notices.committed([caller: cursor]) }
    }

    /// A message's `receive_id` must name a reply between its two people.
    func checkReceiveId(_ receiveId: String, between a: Int, and b: Int) throws {
        guard let id = Int(receiveId) else { throw APIFailure.invalid("receive_id must be a decimal number") }
        let ok = try storage.read { tx in try tx.signals.isReply(id, between: a, and: b) }
        guard ok else { throw APIFailure.forbidden("receive_id \(receiveId) is not a reply between you two") }
    }
}

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

    /// A signal's or a reply's text: 1-500 characters, not only blanks.
    static let maxCharacters = 500

    static func checkText(_ content: String, what: String) throws {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIFailure.invalid("content must not be empty")
        }
        guard content.count <= maxCharacters else {
            throw APIFailure(.tooLarge, "a \(what) is at most \(maxCharacters) characters")
        }
    }

    func create(caller: Int, content: String) throws -> Int {
        try Self.checkText(content, what: "signal")
        let now = config.clock.nowMs()
        return try storage.write { tx in
            try Quotas(config: config).take(.signals, by: caller, in: tx)
            return try tx.signals.insertSignal(owner: caller, content: content, createdAt: now)
        }
    }

    /// Returns the reply's id (a `receive_id`). One reply per user and signal (409).
    func reply(caller: Int, signalId: Int, content: String) throws -> String {
        try Self.checkText(content, what: "reply")
        let now = config.clock.nowMs()
        return try storage.write { tx in
            guard let signal = try tx.signals.signal(signalId), !signal.deleted else {
                throw APIFailure.notFound("no such signal")
            }
            guard signal.ownerUid != caller else { throw APIFailure.forbidden("you cannot reply to your own signal") }
            guard try !tx.people.blocks(signal.ownerUid, caller) && !tx.people.blocks(caller, signal.ownerUid) else {
                throw APIFailure.notFound("no such signal")
            }
            guard try !tx.signals.hasReplied(to: signalId, from: caller) else {
                throw APIFailure(.conflict, "you replied to this signal already")
            }
            return String(try tx.signals.insertReply(signalId: signalId, from: caller, content: content, createdAt: now))
        }
    }

    /// Others' signals, newest first, below `before`.
    func feed(caller: Int, before: Int?, limit: Int) throws -> [SignalFeedItem] {
        guard (1...50).contains(limit) else { throw APIFailure.invalid("limit must be 1-50") }
        return try storage.read { tx in
            try tx.signals.feed(for: caller, before: before, limit: limit).compactMap { row in
                guard let from = try tx.users.info(uid: row.ownerUid) else { return nil }
                return SignalFeedItem(signalId: row.id, content: row.content, from: from, createdAt: row.createdAt,
                                      replied: row.replied)
            }
        }
    }

    /// The caller's own signals with how many replied.
    func mine(caller: Int) throws -> [MySignal] {
        try storage.read { tx in
            try tx.signals.signals(of: caller, limit: 200).map {
                MySignal(signalId: $0.id, content: $0.content, createdAt: $0.createdAt, replyCount: $0.replyCount)
            }
        }
    }

    /// Deletes one of the caller's signals; its replies stay in the inbox.
    func delete(caller: Int, signalId: Int) throws {
        try storage.write { tx in
            guard let signal = try tx.signals.signal(signalId), !signal.deleted else { throw APIFailure.notFound("no such signal") }
            guard signal.ownerUid == caller else { throw APIFailure.forbidden("only its author can delete a signal") }
            try tx.signals.markDeleted(signalId)
        }
    }

    func hide(caller: Int, signalId: Int) throws {
        try storage.write { tx in
            guard try tx.signals.signal(signalId) != nil else { throw APIFailure.notFound("no such signal") }
            try tx.signals.hide(signalId, for: caller)
        }
    }

    /// Keeps a report for the operator (`tongban-server signals reports`).
    func report(caller: Int, signalId: Int, reason: String) throws {
        guard reason.count <= Self.maxCharacters else {
            throw APIFailure(.tooLarge, "a reason is at most \(Self.maxCharacters) characters")
        }
        let now = config.clock.nowMs()
        try storage.write { tx in
            guard let signal = try tx.signals.signal(signalId) else { throw APIFailure.notFound("no such signal") }
            guard signal.ownerUid != caller else { throw APIFailure.invalid("you cannot report your own signal") }
            try tx.signals.report(signalId, by: caller, reason: reason, at: now)
        }
    }

    // MARK: The operator's

    /// The newest reports with their signals, for `tongban-server signals reports`.
    func reports(limit: Int) throws -> [SignalReport] {
        try storage.read { tx in
            try tx.signals.reports(limit: limit).map { r in
                let signal = try tx.signals.signal(r.signalId)
                let author = try signal.flatMap { try tx.users.info(uid: $0.ownerUid) }
                let reporter = try tx.users.info(uid: r.reporterUid)
                return SignalReport(reportId: r.id, signalId: r.signalId, content: signal?.content ?? "",
                                    author: author?.account ?? "", reporter: reporter?.account ?? "", reason: r.reason,
                                    createdAt: r.createdAt, removed: signal?.deleted ?? true)
            }
        }
    }

    /// Removes a signal from every feed (the operator's answer to a report).
    func remove(signalId: Int) throws {
        try storage.write { tx in
            guard try tx.signals.signal(signalId) != nil else { throw APIFailure.notFound("no signal \(signalId)") }
            try tx.signals.markDeleted(signalId)
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

/// A report as the operator reads it.
public struct SignalReport: Sendable, Equatable {
    public var reportId: Int
    public var signalId: Int
    public var content: String
    /// Accounts.
    public var author: String
    public var reporter: String
    public var reason: String
    public var createdAt: Int
    /// Whether the signal is gone from the feed (deleted or removed).
    public var removed: Bool
}

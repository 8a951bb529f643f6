import ChatCore
import Foundation
import Logging

/// Each user's event log: what `/chat/sync` pages through, and what the
/// socket's `sync` notices point at. A user's log is their own entries
/// merged with the timelines of the groups they were in, each for the time
/// they were in it (see `SyncLogRepository`).
final class SyncLogService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let logger: Logger

    init(storage: any ChatStorage, config: ServerConfig) {
        self.storage = storage
        self.config = config
        self.logger = config.logger
    }

    /// An event as stored in the log.
    static func encode(_ event: SyncEvent) throws -> String {
        try event.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    /// Appends an event to a user's log inside `tx`; returns its cursor.
    @discardableResult
    func append(_ event: SyncEvent, to uid: Int, messageId: Int64? = nil, in tx: any StorageTransaction) throws -> Int {
        var summaryKey: String?
        if case .conversation(let s) = event, let last = s.lastMessage {
            summaryKey = SummaryKey.of(conversationId: s.conversationId, clientMsgID: last.clientMsgID)
        }
        return try tx.syncLog.append(uid: uid, messageId: messageId, summaryKey: summaryKey, body: Self.encode(event),
                                     createdAt: config.clock.nowMs())
    }

    /// Appends an event to a group's timeline inside `tx`; returns its cursor.
    func appendShared(_ event: SyncEvent, to conversationId: String, messageId: Int64? = nil,
                      in tx: any StorageTransaction) throws -> Int {
        try tx.syncLog.appendShared(conversationId: conversationId, messageId: messageId, body: Self.encode(event),
                                    createdAt: config.clock.nowMs())
    }

    func currentCursor(uid: Int) throws -> Int {
        try storage.read { tx in try tx.syncLog.newestCursor(uid: uid) } ?? 0
    }

    /// One page of the caller's event log, as the `/chat/sync` body. The
    /// events go out as the JSON the server stored when it logged them,
    /// spliced in as they are (no decoding and encoding each event again);
    /// a stored body that is not a well-formed JSON object is left out, as
    /// one that failed to decode would be, so a damaged row costs that
    /// event, not the page.
    func page(caller: Int, since: Int, limit: Int) throws -> [UInt8] {
        guard since >= 0 else { throw APIFailure.invalid("since must not be negative") }
        guard (1...1000).contains(limit) else { throw APIFailure.invalid("limit must be 1-1000") }
        return try storage.read { tx in
            let floor = try tx.syncLog.floor() ?? 0
            if since > 0 && since < floor {
                throw APIFailure(.cursorExpired, "cursor \(since) is older than the kept log; reload conversations")
            }
            var out: [UInt8] = []
            out.reserveCapacity(64 + 320 * min(limit, 64))
            out.append(contentsOf: #"{"events":["#.utf8)
            var cursor = since, skipped = 0, written = 0
            let hasMore = try tx.syncLog.entries(of: caller, after: since, limit: limit) { entry, body in
                cursor = entry
                guard JSONSyntax.isObject(body) else { skipped += 1; return }
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: body.utf8)
                written += 1
            }
            if skipped > 0 {
                logger.warning("sync for user \(caller): left out \(skipped) stored event(s) that are not well-formed JSON")
            }
            out.append(contentsOf: #"],"cursor":"#.utf8)
            JSONText.appendInt(cursor, to: &out)
            out.append(contentsOf: (hasMore ? #","hasMore":true}"# : #","hasMore":false}"#).utf8)
            return out
        }
    }

    /// Drops events older than the retention (or `cutoff`); later cursors
    /// below the newest dropped one get 410.
    func prune(olderThanMs cutoff: Int? = nil) throws {
        let limit = cutoff ?? (config.clock.nowMs() - config.syncRetentionSeconds * 1000)
        try storage.write { tx in
            guard let newest = try tx.syncLog.newestCursor(createdBefore: limit) else { return }
            try tx.syncLog.deleteEntries(through: newest)
            try tx.syncLog.raiseFloor(to: newest + 1)
        }
    }
}

import ChatCore
import Foundation
import GRDB

/// The sync cursor (`sync_state`), the ranges of history known to be
/// complete (`history_range`), and the gaps between them (seed 001's
/// history checkpoints). Every function runs inside a transaction the
/// caller (``ChatStore``) opened.
enum HistoryTable {
    static func cursor(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM sync_state WHERE key = 'cursor'")) ?? 0
    }

    static func setCursor(_ cursor: Int, db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO sync_state(key, value) VALUES ('cursor', ?)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """).execute(arguments: [cursor])
    }

    /// Records that seqs low...high of a conversation are held in full,
    /// merging with touching or overlapping ranges.
    static func addRange(conversationId: String, low: Int, high: Int, db: Database) throws {
        guard low <= high, low >= 1 else { return }
        var lo = low, hi = high
        let overlapping = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT lowSeq, highSeq FROM history_range
            WHERE conversationId = ? AND lowSeq <= ? AND highSeq >= ?
            """), arguments: [conversationId, hi + 1, lo - 1])
        for r in overlapping {
            lo = min(lo, r["lowSeq"]); hi = max(hi, r["highSeq"])
        }
        try db.cachedStatement(sql: """
            DELETE FROM history_range WHERE conversationId = ? AND lowSeq <= ? AND highSeq >= ?
            """).execute(arguments: [conversationId, hi + 1, lo - 1])
        try db.execute(sql: "INSERT INTO history_range(conversationId, lowSeq, highSeq) VALUES (?, ?, ?)",
                       arguments: [conversationId, lo, hi])
    }

    /// A seq range read back from disk, nil when it is not one (a row edited
    /// by hand must not make `lo...hi` trap, nor `hi + 1` overflow).
    static func seqRange(_ lo: Int?, _ hi: Int?) -> ClosedRange<Int>? {
        guard let lo, let hi, lo >= 0, lo <= hi, hi <= WireRange.max else { return nil }
        return lo...hi
    }

    /// Seq ranges between the clear point and maxSeq not held locally: the
    /// holes to fill from `/chat/messages`. Computed from the seqs present
    /// (the server guarantees no holes) together with recorded ranges.
    static func missingRanges(conversationId: String, db: Database) throws -> [ClosedRange<Int>] {
        guard let conv = try ConversationRecord.fetchOne(db, id: conversationId) else { return [] }
        // Seqs from the wire are 0...2^53 (WireRange); from disk they are clamped the same way.
        let maxSeq = min(max(conv.maxSeq, try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(seq) FROM message WHERE conversationId = ?"),
                                                            arguments: [conversationId]) ?? 0), WireRange.max)
        let clearedSeq = min(max(conv.clearedSeq, 0), WireRange.max)
        guard maxSeq > clearedSeq else { return [] }
        // Islands of consecutive seqs present, via the gaps-and-islands trick.
        let islands = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT MIN(seq) AS lo, MAX(seq) AS hi FROM (
                SELECT seq, seq - ROW_NUMBER() OVER (ORDER BY seq) AS grp
                FROM message WHERE conversationId = ? AND seq IS NOT NULL AND seq > ?)
            GROUP BY grp ORDER BY lo
            """), arguments: [conversationId, clearedSeq]).compactMap { Self.seqRange($0["lo"], $0["hi"]) }
        let recorded = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT lowSeq, highSeq FROM history_range WHERE conversationId = ? ORDER BY lowSeq
            """), arguments: [conversationId]).compactMap { Self.seqRange($0["lowSeq"], $0["highSeq"]) }
        var covered = (islands + recorded).sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int>] = []
        for r in covered {
            if let last = merged.last, r.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        covered = merged
        var missing: [ClosedRange<Int>] = []
        var next = clearedSeq + 1
        for r in covered where r.upperBound >= next {
            if r.lowerBound > next { missing.append(next...min(r.lowerBound - 1, maxSeq)) }
            next = max(next, r.upperBound + 1)
            if next > maxSeq { break }
        }
        if next <= maxSeq { missing.append(next...maxSeq) }
        return missing
    }
}

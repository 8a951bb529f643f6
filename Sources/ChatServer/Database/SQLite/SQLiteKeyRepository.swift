import Foundation
import GRDB

struct SQLiteKeyRepository: KeyRepository {
    let db: Database

    private static let columns = "uid, deviceId, identityKey, signingKey, spkId, spkKey, spkSignature, createdAt"

    private static func device(_ row: Row) -> DeviceKeyRow {
        DeviceKeyRow(uid: row[0], deviceId: row[1], identityKey: row[2], signingKey: row[3], signedPrekeyId: row[4],
                     signedPrekey: row[5], signedPrekeySignature: row[6], createdAt: row[7])
    }

    func device(uid: Int, deviceId: String) throws -> DeviceKeyRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.columns) FROM device_key WHERE uid = ? AND deviceId = ?"),
                         arguments: [uid, deviceId]).map(Self.device)
    }

    func devices(uid: Int, seenSince: Int) throws -> [DeviceKeyRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT d.uid, d.deviceId, d.identityKey, d.signingKey, d.spkId, d.spkKey, d.spkSignature, d.createdAt
            FROM device_key d JOIN token t ON t.sessionId = d.deviceId AND t.uid = d.uid
            WHERE d.uid = ? AND t.lastSeenAt >= ? ORDER BY d.createdAt, d.deviceId
            """), arguments: [uid, seenSince]).map(Self.device)
    }

    func saveDevice(_ d: DeviceKeyRow) throws {
        try db.cachedStatement(sql: """
            INSERT INTO device_key(\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(uid, deviceId) DO UPDATE SET spkId = excluded.spkId, spkKey = excluded.spkKey,
                spkSignature = excluded.spkSignature
            """).execute(arguments: [d.uid, d.deviceId, d.identityKey, d.signingKey, d.signedPrekeyId, d.signedPrekey,
                                     d.signedPrekeySignature, d.createdAt])
    }

    func staleDevices(seenBefore: Int, limit: Int) throws -> [(uid: Int, deviceId: String)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT d.uid, d.deviceId FROM device_key d LEFT JOIN token t ON t.sessionId = d.deviceId AND t.uid = d.uid
            WHERE t.uid IS NULL OR t.lastSeenAt < ? LIMIT ?
            """), arguments: [seenBefore, limit]).map { ($0[0], $0[1]) }
    }

    func deleteDevice(uid: Int, deviceId: String) throws {
        try db.cachedStatement(sql: "DELETE FROM device_key WHERE uid = ? AND deviceId = ?").execute(arguments: [uid, deviceId])
        try db.cachedStatement(sql: "DELETE FROM one_time_prekey WHERE uid = ? AND deviceId = ?").execute(arguments: [uid, deviceId])
    }

    func addPrekeys(uid: Int, deviceId: String, _ keys: [(id: Int, key: Data)]) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO one_time_prekey(uid, deviceId, keyId, key) VALUES (?, ?, ?, ?)
            """)
        for k in keys { try statement.execute(arguments: [uid, deviceId, k.id, k.key]) }
    }

    func prekeyCount(uid: Int, deviceId: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM one_time_prekey WHERE uid = ? AND deviceId = ?"),
                         arguments: [uid, deviceId]) ?? 0
    }

    func trimPrekeys(uid: Int, deviceId: String, keep: Int) throws {
        try db.cachedStatement(sql: """
            DELETE FROM one_time_prekey WHERE uid = ? AND deviceId = ? AND keyId NOT IN
                (SELECT keyId FROM one_time_prekey WHERE uid = ? AND deviceId = ? ORDER BY keyId DESC LIMIT ?)
            """).execute(arguments: [uid, deviceId, uid, deviceId, keep])
    }

    func claimPrekey(uid: Int, deviceId: String) throws -> (id: Int, key: Data)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT keyId, key FROM one_time_prekey WHERE uid = ? AND deviceId = ? ORDER BY keyId LIMIT 1
            """), arguments: [uid, deviceId]) else { return nil }
        let id: Int = row[0]
        try db.cachedStatement(sql: "DELETE FROM one_time_prekey WHERE uid = ? AND deviceId = ? AND keyId = ?")
            .execute(arguments: [uid, deviceId, id])
        return (id, row[1])
    }

    func noteExpiry(messageId: Int64, expireAt: Int) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO secret_expiry(messageId, expireAt) VALUES (?, ?)")
            .execute(arguments: [messageId, expireAt])
    }

    func expired(through now: Int, limit: Int) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT messageId FROM secret_expiry WHERE expireAt <= ? ORDER BY expireAt LIMIT ?
            """), arguments: [now, limit])
    }

    func forgetExpiry(messageId: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM secret_expiry WHERE messageId = ?").execute(arguments: [messageId])
    }
}

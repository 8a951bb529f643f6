import ChatServer
import Foundation
import PostgresNIO

struct PostgresKeyRepository: KeyRepository {
    let conn: PostgresLink

    private static func device(_ row: PostgresRow) throws -> DeviceKeyRow {
        let (uid, deviceId, identity, signing, spkId, spk, signature, createdAt) =
            try row.decode((Int, String, Data, Data, Int, Data, Data, Int).self)
        return DeviceKeyRow(uid: uid, deviceId: deviceId, identityKey: identity, signingKey: signing, signedPrekeyId: spkId,
                            signedPrekey: spk, signedPrekeySignature: signature, createdAt: createdAt)
    }

    func device(uid: Int, deviceId: String) throws -> DeviceKeyRow? {
        try conn.query("""
            SELECT uid, device_id, identity_key, signing_key, spk_id, spk_key, spk_signature, created_at
            FROM device_key WHERE uid = \(uid) AND device_id = \(deviceId)
            """).first.map(Self.device)
    }

    func devices(uid: Int, seenSince: Int) throws -> [DeviceKeyRow] {
        try conn.query("""
            SELECT d.uid, d.device_id, d.identity_key, d.signing_key, d.spk_id, d.spk_key, d.spk_signature, d.created_at
            FROM device_key d JOIN token t ON t.session_id = d.device_id AND t.uid = d.uid
            WHERE d.uid = \(uid) AND t.last_seen_at >= \(seenSince) ORDER BY d.created_at, d.device_id
            """).map(Self.device)
    }

    func saveDevice(_ d: DeviceKeyRow) throws {
        try conn.execute("""
            INSERT INTO device_key(uid, device_id, identity_key, signing_key, spk_id, spk_key, spk_signature, created_at)
            VALUES (\(d.uid), \(d.deviceId), \(d.identityKey), \(d.signingKey), \(d.signedPrekeyId), \(d.signedPrekey),
                    \(d.signedPrekeySignature), \(d.createdAt))
            ON CONFLICT (uid, device_id) DO UPDATE SET spk_id = excluded.spk_id, spk_key = excluded.spk_key,
                spk_signature = excluded.spk_signature
            """)
    }

    func staleDevices(seenBefore: Int, limit: Int) throws -> [(uid: Int, deviceId: String)] {
        try conn.query("""
            SELECT d.uid, d.device_id FROM device_key d LEFT JOIN token t ON t.session_id = d.device_id AND t.uid = d.uid
            WHERE t.uid IS NULL OR t.last_seen_at < \(seenBefore) LIMIT \(limit)
            """).map { row in
            let (uid, device) = try row.decode((Int, String).self)
            return (uid: uid, deviceId: device)
        }
    }

    func deleteDevice(uid: Int, deviceId: String) throws {
        try conn.execute("DELETE FROM device_key WHERE uid = \(uid) AND device_id = \(deviceId)")
        try conn.execute("DELETE FROM one_time_prekey WHERE uid = \(uid) AND device_id = \(deviceId)")
    }

    func addPrekeys(uid: Int, deviceId: String, _ keys: [(id: Int, key: Data)]) throws {
        for k in keys {
            try conn.execute("""
                INSERT INTO one_time_prekey(uid, device_id, key_id, key) VALUES (\(uid), \(deviceId), \(k.id), \(k.key))
                ON CONFLICT DO NOTHING
                """)
        }
    }

    func prekeyCount(uid: Int, deviceId: String) throws -> Int {
        try conn.query("SELECT COUNT(*)::BIGINT FROM one_time_prekey WHERE uid = \(uid) AND device_id = \(deviceId)")
            .first?.decode(Int.self) ?? 0
    }

    func trimPrekeys(uid: Int, deviceId: String, keep: Int) throws {
        try conn.execute("""
            DELETE FROM one_time_prekey WHERE uid = \(uid) AND device_id = \(deviceId) AND key_id NOT IN
                (SELECT key_id FROM one_time_prekey WHERE uid = \(uid) AND device_id = \(deviceId) ORDER BY key_id DESC LIMIT \(keep))
            """)
    }

    func claimPrekey(uid: Int, deviceId: String) throws -> (id: Int, key: Data)? {
        // One statement: two nodes claiming at once never hand out one key twice.
        guard let row = try conn.query("""
            DELETE FROM one_time_prekey WHERE (uid, device_id, key_id) = (
                SELECT uid, device_id, key_id FROM one_time_prekey WHERE uid = \(uid) AND device_id = \(deviceId)
                ORDER BY key_id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING key_id, key
            """).first else { return nil }
        let (id, key) = try row.decode((Int, Data).self)
        return (id, key)
    }

    func noteExpiry(messageId: Int64, expireAt: Int) throws {
        try conn.execute("""
            INSERT INTO secret_expiry(message_id, expire_at) VALUES (\(messageId), \(expireAt))
            ON CONFLICT (message_id) DO UPDATE SET expire_at = excluded.expire_at
            """)
    }

    func expired(through now: Int, limit: Int) throws -> [Int64] {
        try conn.query("SELECT message_id FROM secret_expiry WHERE expire_at <= \(now) ORDER BY expire_at LIMIT \(limit)")
            .map { try $0.decode(Int64.self) }
    }

    func forgetExpiry(messageId: Int64) throws {
        try conn.execute("DELETE FROM secret_expiry WHERE message_id = \(messageId)")
    }
}

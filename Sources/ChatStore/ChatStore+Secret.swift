import ChatCore
import ChatCrypto
import Foundation
import GRDB

/// Secret chats in the store: this device's keys, sealing (each seal one
/// write transaction: load the sessions, step them, save them), the devices
/// known of each person, the verified mark and the chat's timer.
extension ChatStore {
    /// This device's keys as `PUT /keys/device` takes them, made on first
    /// use for `deviceId` (a new login gets new keys and forgets the old
    /// sessions); nil when they are already on the server.
    public func secretKeysToUpload(deviceId: String) throws -> DeviceKeysUpload? {
        // Almost always already there: a read, not a write transaction, says so.
        let uploaded = try dbPool.read { db in
            try Bool.fetchOne(db, sql: "SELECT uploaded FROM secretIdentity WHERE id = 1 AND deviceId = ?", arguments: [deviceId])
        }
        if uploaded == true { return nil }
        return try dbPool.write { db in
            if let id = try SecretVault.identity(db), id.deviceId == deviceId {
                return id.uploaded ? nil : Self.upload(id.keys, prekeys: id.keys.oneTimePublic)
            }
            try Self.forgetSessions(db)
            let keys = DeviceKeys.generate(oneTime: 100)
            try SecretVault.save(SecretVault.Identity(deviceId: deviceId, keys: keys, uploaded: false), db)
            return Self.upload(keys, prekeys: keys.oneTimePublic)
        }
    }

    static func upload(_ keys: DeviceKeys, prekeys: [PublicPrekey]) -> DeviceKeysUpload {
        let spk = keys.signedPrekeyPublic
        return DeviceKeysUpload(identityKey: keys.identityPublic.base64EncodedString(),
                                signingKey: keys.signingPublic.base64EncodedString(),
                                signedPrekey: SignedPrekeyWire(id: spk.id, key: spk.key.base64EncodedString(),
                                                               signature: keys.signedPrekeySignature.base64EncodedString()),
                                oneTimePrekeys: prekeys.map { PrekeyWire(id: $0.id, key: $0.key.base64EncodedString()) })
    }

    public func markSecretKeysUploaded() throws {
        try dbPool.write { db in try db.execute(sql: "UPDATE secretIdentity SET uploaded = 1") }
    }

    /// This device's id, once it has keys.
    public func secretDeviceId() throws -> String? {
        try dbPool.read { db in try SecretVault.identity(db)?.deviceId }
    }

    /// `count` more one-time prekeys, as the upload that adds them.
    public func moreSecretPrekeys(_ count: Int) throws -> DeviceKeysUpload? {
        try dbPool.write { db in
            guard var id = try SecretVault.identity(db) else { return nil }
            let added = id.keys.addOneTimePrekeys(count)
            try SecretVault.save(id, db)
            return Self.upload(id.keys, prekeys: added)
        }
    }

    /// Seals one message for `recipients` (see `SecretVault.seal`).
    public func sealSecret(_ plaintext: Data, _ outer: SecretOuter, for recipients: [SecretRecipient]) throws -> [String: SecretEnvelope] {
        try dbPool.write { db in try SecretVault.seal(plaintext, outer, for: recipients, db) }
    }

    /// Keeps what this device is about to send (its copy of a control).
    public func rememberSecretSent(clientMsgID: String, plaintext: Data) throws {
        try dbPool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO secretSent(clientMsgID, plaintext) VALUES (?, ?)",
                           arguments: [clientMsgID, plaintext])
        }
    }

    /// The key and hash of a secret message's blob, if this device opened one that names it.
    public func secretBlobKey(objectKey: String) throws -> (key: String, sha256: String)? {
        try dbPool.read { db in
            try Row.fetchOne(db, sql: "SELECT key, sha256 FROM secretBlobKey WHERE objectKey = ?", arguments: [objectKey])
                .map { ($0["key"], $0["sha256"]) }
        }
    }

    /// The devices of `imUid` as the server lists them now. When they differ
    /// from what was known, the verified mark goes and the secret chat with
    /// that person says so; returns whether they changed.
    @discardableResult
    public func saveSecretDevices(imUid: String, _ devices: [DeviceBundle]) throws -> Bool {
        let rows = devices.compactMap { d -> (String, Data, Data)? in
            guard let identity = Data(base64Encoded: d.identityKey), let signing = Data(base64Encoded: d.signingKey) else { return nil }
            return (d.deviceId, identity, signing)
        }
        return try dbPool.write { db in
            let before = try Row.fetchAll(db, sql: "SELECT deviceId, identityKey FROM secretDevice WHERE imUid = ?",
                                          arguments: [imUid]).map { "\($0["deviceId"] as String) \(($0["identityKey"] as Data).base64EncodedString())" }
            let after = rows.map { "\($0.0) \($0.1.base64EncodedString())" }
            guard Set(before) != Set(after) else { return false }
            try db.execute(sql: "DELETE FROM secretDevice WHERE imUid = ?", arguments: [imUid])
            for (device, identity, signing) in rows {
                try db.execute(sql: "INSERT INTO secretDevice(imUid, deviceId, identityKey, signingKey) VALUES (?, ?, ?, ?)",
                               arguments: [imUid, device, identity, signing])
            }
            // The first list heard is no change; a later different one is.
            guard !before.isEmpty, imUid != self.myImUid, let uid = ConversationIDHelper.uid(fromImUid: imUid) else { return !before.isEmpty }
            try db.execute(sql: "UPDATE secretPeer SET verified = '' WHERE imUid = ?", arguments: [imUid])
            let conversationId = ConversationIDHelper.secret(myUid: self.myUid, targetUid: uid)
            if try ConversationRecord.fetchOne(db, id: conversationId) != nil {
                let name = try SecretIngest.displayName(imUid, me: self.me, db: db)
                let seq = try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM message WHERE conversationId = ?",
                                           arguments: [conversationId]) ?? 0
                let wire = WireMessage(serverMsgID: "", clientMsgID: "local-" + UUID().uuidString, conversationId: conversationId,
                                       seq: seq, sendID: imUid, recvID: self.myImUid, contentType: SecretWire.contentType,
                                       content: SecretNoticePayload(.safetyChanged, name: name).jsonText,
                                       sendTime: Int(Date().timeIntervalSince1970 * 1000))
                _ = try MessageRecord(wire: wire).insertIfNew(db)
            }
            return true
        }
    }

    /// The devices known of `imUid`: id and identity key.
    public func secretDeviceList(imUid: String) throws -> [(deviceId: String, identityKey: Data)] {
        try dbPool.read { db in
            try Row.fetchAll(db, sql: "SELECT deviceId, identityKey FROM secretDevice WHERE imUid = ? ORDER BY deviceId",
                             arguments: [imUid]).map { ($0["deviceId"], $0["identityKey"]) }
        }
    }

    /// The devices known of `imUid`, as the safety number reads them.
    public func secretDevices(imUid: String) throws -> [SafetyNumber.Device] {
        try dbPool.read { db in
            try Row.fetchAll(db, sql: "SELECT identityKey, signingKey FROM secretDevice WHERE imUid = ?", arguments: [imUid])
                .map { SafetyNumber.Device(identityKey: $0["identityKey"], signingKey: $0["signingKey"]) }
        }
    }

    /// The safety number the user marked verified with `imUid` ("" for none).
    public func secretVerified(imUid: String) throws -> String {
        try dbPool.read { db in
            try String.fetchOne(db, sql: "SELECT verified FROM secretPeer WHERE imUid = ?", arguments: [imUid]) ?? ""
        }
    }

    public func setSecretVerified(imUid: String, number: String) throws {
        try dbPool.write { db in
            try db.execute(sql: """
                INSERT INTO secretPeer(imUid, verified) VALUES (?, ?) ON CONFLICT(imUid) DO UPDATE SET verified = excluded.verified
                """, arguments: [imUid, number])
        }
    }

    /// A secret chat's disappearing-message timer in seconds (0: off).
    public func secretTimer(conversationId: String) throws -> Int {
        try dbPool.read { db in
            try Int.fetchOne(db, sql: "SELECT timerSeconds FROM secretChat WHERE conversationId = ?", arguments: [conversationId]) ?? 0
        }
    }

    /// Signing out: the keys, the sessions and every secret chat's history go.
    public func forgetSecrets() throws {
        try dbPool.write { db in
            try Self.forgetSessions(db)
            try db.execute(sql: "DELETE FROM secretIdentity")
            try db.execute(sql: "DELETE FROM secretDevice")
            try db.execute(sql: "DELETE FROM secretPeer")
            try db.execute(sql: "DELETE FROM secretChat")
            try db.execute(sql: "DELETE FROM secretSent")
            try db.execute(sql: "DELETE FROM secretBlobKey")
            try db.execute(sql: "DELETE FROM message WHERE substr(conversationId, 1, 3) = 'ss_'")
            try db.execute(sql: "DELETE FROM conversation WHERE substr(id, 1, 3) = 'ss_'")
        }
    }

    static func forgetSessions(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM secretSession")
        try db.execute(sql: "DELETE FROM secretBaseKey")
    }
}

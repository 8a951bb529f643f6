import ChatCore
import Crypto
import Foundation

/// `/keys/*` (PROTOCOL.md v4 "Secret chats"): each login session's public
/// keys, one-time prekeys claimed once, and who hears when a user's set of
/// devices changes. Private keys never reach the server.
final class KeyService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let syncLog: SyncLogService
    let notices: CommitNotifier
    let limits: any SharedLimits

    /// A device not seen for this long loses its keys (it is left out of every set).
    static let unseenLimitMs = 90 * 24 * 3600 * 1000
    /// Claims of one caller on one target's prekeys, per hour.
    static let claimsPerHour = 20

    init(storage: any ChatStorage, config: ServerConfig, syncLog: SyncLogService, notices: CommitNotifier,
         limits: any SharedLimits) {
        self.storage = storage; self.config = config; self.syncLog = syncLog; self.notices = notices; self.limits = limits
    }

    /// The session (device) a token belongs to.
    static func deviceId(uid: Int, token: String, in tx: any StorageTransaction) throws -> String {
        let hash = Credentials.tokenHash(token)
        guard let session = try tx.accounts.sessions(uid: uid).first(where: { $0.tokenHash == hash }) else {
            throw APIFailure.unauthorized
        }
        return session.sessionId
    }

    /// `uid`'s devices with keys now (a session that still exists and was seen in 90 days).
    func devices(of uid: Int, in tx: any StorageTransaction) throws -> [DeviceKeyRow] {
        try Self.devices(of: uid, now: config.clock.nowMs(), in: tx)
    }

    static func devices(of uid: Int, now: Int, in tx: any StorageTransaction) throws -> [DeviceKeyRow] {
        try tx.keys.devices(uid: uid, seenSince: now - unseenLimitMs)
    }

    static func raw(_ base64: String, _ bytes: Int, _ what: String) throws -> Data {
        guard let data = Data(base64Encoded: base64), data.count == bytes else {
            throw APIFailure.invalid("\(what) must be base64 of \(bytes) bytes")
        }
        return data
    }

    /// `PUT /keys/device`.
    func upload(caller: Int, token: String, _ u: DeviceKeysUpload) throws {
        let identity = try Self.raw(u.identityKey, 32, "identityKey")
        let signing = try Self.raw(u.signingKey, 32, "signingKey")
        let spk = try Self.raw(u.signedPrekey.key, 32, "signedPrekey.key")
        let signature = try Self.raw(u.signedPrekey.signature, 64, "signedPrekey.signature")
        guard (0...Int(UInt32.max)).contains(u.signedPrekey.id) else { throw APIFailure.invalid("signedPrekey.id is out of range") }
        guard let verifier = try? Curve25519.Signing.PublicKey(rawRepresentation: signing),
              verifier.isValidSignature(signature, for: spk) else {
            throw APIFailure.invalid("the signed prekey's signature does not verify with signingKey")
        }
        guard u.oneTimePrekeys.count <= SecretWire.maxOneTimePrekeys else {
            throw APIFailure.invalid("at most \(SecretWire.maxOneTimePrekeys) one-time prekeys at once")
        }
        var prekeys: [(id: Int, key: Data)] = []
        for k in u.oneTimePrekeys {
            guard (1...Int(UInt32.max)).contains(k.id) else { throw APIFailure.invalid("a one-time prekey's id must be 1-4294967295") }
            prekeys.append((k.id, try Self.raw(k.key, 32, "oneTimePrekeys.key")))
        }
        let now = config.clock.nowMs()
        let cursors = try storage.write { tx -> [Int: Int] in
            let device = try Self.deviceId(uid: caller, token: token, in: tx)
            let existing = try tx.keys.device(uid: caller, deviceId: device)
            if let existing, existing.identityKey != identity || existing.signingKey != signing {
                throw APIFailure(.conflict, "this device's identity and signing keys cannot change; sign in again for new ones")
            }
            if existing == nil, try self.devices(of: caller, in: tx).count >= SecretWire.maxDevices {
                throw APIFailure(.tooManyDevices, "at most \(SecretWire.maxDevices) devices with keys; sign one out first")
            }
            try tx.keys.saveDevice(DeviceKeyRow(uid: caller, deviceId: device, identityKey: identity, signingKey: signing,
                                                signedPrekeyId: u.signedPrekey.id, signedPrekey: spk,
                                                signedPrekeySignature: signature, createdAt: existing?.createdAt ?? now))
            try tx.keys.addPrekeys(uid: caller, deviceId: device, prekeys)
            try tx.keys.trimPrekeys(uid: caller, deviceId: device, keep: SecretWire.maxOneTimePrekeys)
            return existing == nil ? try self.announceDevices(of: caller, in: tx) : [:]
        }
        notices.committed(cursors)
    }

    /// `GET /keys/count`.
    func count(caller: Int, token: String) throws -> PrekeyCount {
        try storage.read { tx in
            let device = try Self.deviceId(uid: caller, token: token, in: tx)
            return PrekeyCount(oneTimePrekeys: try tx.keys.prekeyCount(uid: caller, deviceId: device))
        }
    }

    static func bundle(_ d: DeviceKeyRow, oneTime: (id: Int, key: Data)?? = nil) -> DeviceBundle {
        var b = DeviceBundle(deviceId: d.deviceId, identityKey: d.identityKey.base64EncodedString(),
                             signingKey: d.signingKey.base64EncodedString(),
                             signedPrekey: SignedPrekeyWire(id: d.signedPrekeyId, key: d.signedPrekey.base64EncodedString(),
                                                            signature: d.signedPrekeySignature.base64EncodedString()))
        if let oneTime {
            b.claimed = true
            b.oneTimePrekey = oneTime.map { PrekeyWire(id: $0.id, key: $0.key.base64EncodedString()) }
        }
        return b
    }

    /// `GET /keys/devices`: anyone's public keys (a safety number needs them).
    func devices(caller: Int, userId: Int) throws -> DevicesResponse {
        try storage.read { tx in
            guard try tx.users.info(uid: userId) != nil else { throw APIFailure.notFound("no such user") }
            return DevicesResponse(devices: try self.devices(of: userId, in: tx).map { Self.bundle($0) })
        }
    }

    /// `POST /keys/claim`: each named (or every) device of the user with one
    /// of its one-time prekeys, which is then gone.
    func claim(caller: Int, _ r: KeyClaimRequest) async throws -> DevicesResponse {
        let key = "claim|\(caller)|\(r.userId)"
        let now = config.clock.nowMs()
        if r.userId != caller,
           let waitMs = try limits.blockedFor(key, limit: Self.claimsPerHour, windowMs: 3_600_000, now: now) {
            throw APIFailure(.rateLimited, "too many key claims for this user; try again later", retryAfter: (waitMs + 999) / 1000)
        }
        if let ids = r.deviceIds, ids.count > 2 * SecretWire.maxDevices { throw APIFailure.invalid("device_ids names too many devices") }
        let response = try storage.write { tx -> DevicesResponse in
            guard try tx.users.info(uid: r.userId) != nil else { throw APIFailure.notFound("no such user") }
            if r.userId != caller { try Self.checkNotBlocked(caller, r.userId, in: tx) }
            var devices = try self.devices(of: r.userId, in: tx)
            if let ids = r.deviceIds { devices = devices.filter { ids.contains($0.deviceId) } }
            return DevicesResponse(devices: try devices.map { d in
                Self.bundle(d, oneTime: .some(try tx.keys.claimPrekey(uid: d.uid, deviceId: d.deviceId)))
            })
        }
        if r.userId != caller { try limits.record(key, limit: Self.claimsPerHour, windowMs: 3_600_000, now: now) }
        return response
    }

    /// The rules of a single chat: a peer who does not take the caller's
    /// messages (a block, friends only) is 403 `blocked`.
    static func checkNotBlocked(_ caller: Int, _ peer: Int, in tx: any StorageTransaction) throws {
        if try tx.people.refuses(receiver: peer, sender: caller) {
            throw APIFailure(.blocked, "this user does not take your messages")
        }
    }

    /// A session ended (logout, revoke, password change): its keys go, and
    /// if it had keys, the user's set changed. Inside the ending's transaction.
    func sessionEnded(uid: Int, sessionId: String, in tx: any StorageTransaction) throws -> [Int: Int] {
        guard try tx.keys.device(uid: uid, deviceId: sessionId) != nil else { return [:] }
        try tx.keys.deleteDevice(uid: uid, deviceId: sessionId)
        return try announceDevices(of: uid, in: tx)
    }

    /// Devices unseen for 90 days (or whose session ended some other way)
    /// lose their keys, and those who share a secret chat with them hear of
    /// it. Run with the other prunes; returns how many went.
    @discardableResult
    func pruneStale() throws -> Int {
        let cutoff = config.clock.nowMs() - Self.unseenLimitMs
        let (gone, cursors) = try storage.write { tx -> (Int, [Int: Int]) in
            var cursors: [Int: Int] = [:]
            let stale = try tx.keys.staleDevices(seenBefore: cutoff, limit: 500)
            for d in stale {
                try tx.keys.deleteDevice(uid: d.uid, deviceId: d.deviceId)
            }
            for uid in Set(stale.map(\.uid)) { cursors.merge(try self.announceDevices(of: uid, in: tx)) { max($0, $1) } }
            return (stale.count, cursors)
        }
        notices.committed(cursors)
        return gone
    }

    /// `{"kind": "devices", "userId"}` to the user's own sessions and to
    /// everyone who shares a secret chat with them.
    func announceDevices(of uid: Int, in tx: any StorageTransaction) throws -> [Int: Int] {
        let event = SyncEvent.devices(userId: ConversationIDHelper.imUid(uid))
        var cursors = [uid: try syncLog.append(event, to: uid, in: tx)]
        for peer in try tx.conversations.secretPeers(of: uid) where cursors[peer] == nil {
            cursors[peer] = try syncLog.append(event, to: peer, in: tx)
        }
        return cursors
    }
}

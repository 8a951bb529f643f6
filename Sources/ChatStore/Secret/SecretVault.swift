import ChatCore
import ChatCrypto
import Foundation
import GRDB

/// The outer fields of a secret message that every envelope's associated
/// data binds (docs/protocol.md "Secret chats: envelopes").
public struct SecretOuter: Sendable, Hashable {
    public var conversationId: String
    public var clientMsgID: String
    /// The sending device as an envelope key, `tb_1:<deviceId>`.
    public var sender: String
    public var kind: String
    public var expireAt: Int?
    public var flash: Bool
    public var blobs: [String]

    public init(conversationId: String, clientMsgID: String, sender: String, kind: String, expireAt: Int? = nil,
                flash: Bool = false, blobs: [String] = []) {
        self.conversationId = conversationId; self.clientMsgID = clientMsgID; self.sender = sender; self.kind = kind
        self.expireAt = expireAt; self.flash = flash; self.blobs = blobs
    }

    /// The binding for the envelope of `receiver` (an envelope key).
    func binding(receiver: String) -> Data {
        let lines = ["Tongban secret v1", conversationId, clientMsgID, sender, receiver, kind,
                     expireAt.map(String.init) ?? "", flash ? "1" : "", blobs.joined(separator: ",")]
        return Data(lines.joined(separator: "\n").utf8)
    }
}

/// A device to seal for: its keys as the server lists them, and a claimed
/// bundle when this device has no session with it yet.
public struct SecretRecipient: Sendable, Hashable {
    public var imUid: String
    public var deviceId: String
    public var identityKey: Data
    public var bundle: PrekeyBundle?
    /// Start a new session from `bundle` even when one exists (a reseal); the
    /// existing ones are kept for what is still on its way from that device.
    public var fresh = false
    public init(imUid: String, deviceId: String, identityKey: Data, bundle: PrekeyBundle? = nil, fresh: Bool = false) {
        self.imUid = imUid; self.deviceId = deviceId; self.identityKey = identityKey; self.bundle = bundle; self.fresh = fresh
    }
    public var envelopeKey: String { SecretWire.envelopeKey(imUid: imUid, deviceId: deviceId) }
}

public enum SecretVaultError: Error, Equatable, CustomStringConvertible {
    /// No keys on this device yet.
    case noIdentity
    /// These devices need a claimed bundle (no session with them).
    case needsBundles([String])
    public var description: String {
        switch self {
        case .noIdentity: "this device has no secret-chat keys yet"
        case .needsBundles(let keys): "no session with \(keys.count) device(s) yet"
        }
    }
}

/// What opening an envelope gave.
enum Opened {
    case plaintext(Data)
    /// No envelope for this device: sent before it had keys.
    case notForThisDevice
    /// Sent by this very device (it keeps its own copy).
    case mine
    case failed
}

/// X3DH and the Double Ratchet over this store's tables: each seal or open
/// runs inside the caller's write transaction (load, step, save), so two
/// processes sharing the store never use one message key twice.
enum SecretVault {
    struct Identity {
        var deviceId: String
        var keys: DeviceKeys
        var uploaded: Bool
    }

    /// A session with one device: its peer's identity key, X3DH's AD, the
    /// ratchet state, the start still sent with each message until the peer
    /// answers, and (when this device answered it) the initiator's base key.
    struct StoredSession<State> {
        var identityKey: Data
        var ad: Data
        var state: State
        var start: Data?
        var baseKey: Data?

        func with<Other>(_ state: Other) -> StoredSession<Other> {
            StoredSession<Other>(identityKey: identityKey, ad: ad, state: state, start: start, baseKey: baseKey)
        }
    }

    typealias Session = StoredSession<RatchetSession>

    static func identity(_ db: Database) throws -> Identity? {
        guard let row = try Row.fetchOne(db, sql: "SELECT deviceId, keys, uploaded FROM secretIdentity WHERE id = 1"),
              let keys = try? JSONDecoder().decode(DeviceKeys.self, from: row["keys"] as Data) else { return nil }
        return Identity(deviceId: row["deviceId"], keys: keys, uploaded: row["uploaded"])
    }

    /// This device's id alone (its keys are decoded only when a session starts).
    static func deviceId(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT deviceId FROM secretIdentity WHERE id = 1")
    }

    static func save(_ identity: Identity, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO secretIdentity(id, deviceId, keys, uploaded) VALUES (1, ?, ?, ?)",
                       arguments: [identity.deviceId, try JSONEncoder().encode(identity.keys), identity.uploaded])
    }

    /// Sessions kept per device pair: the one in use and older ones.
    static let keptSessions = 10

    /// A kept session as stored: its ratchet state decoded only when tried.
    typealias Kept = StoredSession<Data>

    /// The sessions with a device, the one in use first.
    static func sessions(_ imUid: String, _ deviceId: String, _ db: Database) throws -> [Kept] {
        try Row.fetchAll(db, sql: """
            SELECT identityKey, ad, state, start, baseKey FROM secretSession WHERE imUid = ? AND deviceId = ? ORDER BY slot
            """, arguments: [imUid, deviceId]).map { row in
            Kept(identityKey: row["identityKey"], ad: row["ad"], state: row["state"], start: row["start"], baseKey: row["baseKey"])
        }
    }

    /// Saves `current` as the session in use (it was `at` among `all`, or
    /// is new), the others after it; the oldest beyond ten are dropped.
    static func save(_ current: Session, replacing at: Int?, among all: [Kept], _ imUid: String, _ deviceId: String,
                     _ db: Database) throws {
        let state = current.state.serialized
        if at == 0 {
            // The session in use stepped on: one row changes.
            try db.execute(sql: """
                UPDATE secretSession SET state = ?, start = ? WHERE imUid = ? AND deviceId = ? AND slot = 0
                """, arguments: [state, current.start, imUid, deviceId])
            return
        }
        var ordered = all
        if let at { ordered.remove(at: at) }
        ordered.insert(current.with(state), at: 0)
        try db.execute(sql: "DELETE FROM secretSession WHERE imUid = ? AND deviceId = ?", arguments: [imUid, deviceId])
        for (slot, k) in ordered.prefix(keptSessions).enumerated() {
            try db.execute(sql: """
                INSERT INTO secretSession(imUid, deviceId, slot, identityKey, ad, state, start, baseKey) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [imUid, deviceId, slot, k.identityKey, k.ad, k.state, k.start, k.baseKey])
        }
    }

    /// X3DH's start as a prekey envelope carries it: identity key (32) ‖
    /// base key (32) ‖ signed prekey id (4) ‖ one-time prekey id (4, 0 = none).
    static func encode(_ start: X3DH.Start) -> Data {
        var out = start.identityKey + start.baseKey
        for v in [start.signedPrekeyId, start.oneTimePrekeyId ?? 0] {
            out += withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian) { Data($0) }
        }
        return out
    }

    static func decodeStart(_ bytes: Data) -> X3DH.Start? {
        guard bytes.count == 72 else { return nil }
        let b = [UInt8](bytes)
        func u32(_ at: Int) -> Int { b[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let otk = u32(68)
        return X3DH.Start(identityKey: Data(b[0..<32]), baseKey: Data(b[32..<64]), signedPrekeyId: u32(64),
                          oneTimePrekeyId: otk == 0 ? nil : otk)
    }

    /// Seals `plaintext` for each recipient; throws `needsBundles` (and
    /// changes nothing) when a recipient without a session came without a bundle.
    static func seal(_ plaintext: Data, _ outer: SecretOuter, for recipients: [SecretRecipient],
                     _ db: Database) throws -> [String: SecretEnvelope] {
        guard try deviceId(db) != nil else { throw SecretVaultError.noIdentity }
        var me: Identity?
        var sessions: [String: Session] = [:]
        var kept: [String: (all: [Kept], inUse: Int?)] = [:]
        var missing: [String] = []
        for r in recipients {
            let all = try self.sessions(r.imUid, r.deviceId, db)
            // A device whose identity changed is someone new: its old sessions go.
            let same = all.filter { $0.identityKey == r.identityKey }
            if !r.fresh, let s = same.first?.session {
                sessions[r.envelopeKey] = s
                kept[r.envelopeKey] = (same, 0)
            } else if let bundle = r.bundle, bundle.identityKey == r.identityKey {
                kept[r.envelopeKey] = (same, nil)
                if me == nil { me = try identity(db) }
                guard let keys = me?.keys else { throw SecretVaultError.noIdentity }
                let (secret, ad, start) = try X3DH.initiate(keys, with: bundle)
                sessions[r.envelopeKey] = Session(identityKey: r.identityKey, ad: ad,
                                                  state: try RatchetSession.initiator(secret: secret, remoteRatchetKey: bundle.signedPrekey.key),
                                                  start: encode(start), baseKey: nil)
            } else {
                missing.append(r.envelopeKey)
            }
        }
        guard missing.isEmpty else { throw SecretVaultError.needsBundles(missing) }
        var envelopes: [String: SecretEnvelope] = [:]
        for r in recipients {
            guard var s = sessions[r.envelopeKey] else { continue }
            let (header, ciphertext) = try s.state.encrypt(plaintext, ad: s.ad + outer.binding(receiver: r.envelopeKey))
            if let start = s.start {
                envelopes[r.envelopeKey] = SecretEnvelope(t: "prekey", b: (start + header + ciphertext).base64EncodedString())
            } else {
                envelopes[r.envelopeKey] = SecretEnvelope(t: "msg", b: (header + ciphertext).base64EncodedString())
            }
            let (all, inUse) = kept[r.envelopeKey] ?? ([], nil)
            try save(s, replacing: inUse, among: all, r.imUid, r.deviceId, db)
        }
        return envelopes
    }

    /// Opens this device's envelope of a message `senderImUid` sent. Nothing
    /// is saved unless it opened.
    static func open(_ payload: SecretPayload, _ outer: SecretOuter, senderImUid: String, myImUid: String, myDevice: String?,
                     _ db: Database) throws -> Opened {
        // No keys yet: nothing can have been sealed for this device.
        guard let myDevice else { return .notForThisDevice }
        if senderImUid == myImUid && payload.from == myDevice { return .mine }
        let mine = SecretWire.envelopeKey(imUid: myImUid, deviceId: myDevice)
        guard let envelope = payload.envelopes[mine] else { return .notForThisDevice }
        let from = payload.sender(of: mine)
        guard let bytes = Data(base64Encoded: envelope.b) else { return .failed }
        let body: Data
        let all = try sessions(senderImUid, from, db)
        var candidates: [(session: () -> Session?, index: Int?)] = []
        var newBase: Data?
        var responder: Identity?
        if envelope.isPrekey {
            guard bytes.count > 72 + 40, let start = decodeStart(bytes.prefix(72)) else { return .failed }
            body = bytes.dropFirst(72)
            if let i = all.firstIndex(where: { $0.baseKey == start.baseKey }), let known = all[i].session {
                candidates = [({ known }, i)]
            } else {
                // A new session from this device: never from a base key answered before (a replay).
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM secretBaseKey WHERE baseKey = ?", arguments: [start.baseKey]) == true {
                    return .failed
                }
                if let listed = try knownIdentity(senderImUid, from, db), listed != start.identityKey { return .failed }
                guard var me = try identity(db), let (secret, ad) = try? X3DH.respond(&me.keys, to: start) else { return .failed }
                responder = me
                let fresh = Session(identityKey: start.identityKey, ad: ad, state: RatchetSession.responder(secret: secret, keys: me.keys),
                                    start: nil, baseKey: start.baseKey)
                candidates = [({ fresh }, nil)]
                newBase = start.baseKey
            }
        } else {
            body = bytes
            // The session in use first, then older ones (a message sent before both sides settled on one).
            candidates = all.enumerated().map { kept in ({ kept.element.session }, kept.offset) }
        }
        guard body.count > 40 else { return .failed }
        let ad = outer.binding(receiver: mine)
        for (candidate, index) in candidates {
            guard var s = candidate() else { continue }
            guard let plaintext = try? s.state.decrypt(header: Data(body.prefix(40)), ciphertext: Data(body.dropFirst(40)),
                                                       ad: s.ad + ad) else { continue }
            // An answer from the peer: our start is known to them now.
            if !envelope.isPrekey { s.start = nil }
            try save(s, replacing: index, among: all, senderImUid, from, db)
            if let base = newBase, let responder {
                try db.execute(sql: "INSERT OR IGNORE INTO secretBaseKey(baseKey) VALUES (?)", arguments: [base])
                // The one-time prekey it named is used up.
                try save(responder, db)
            }
            return .plaintext(plaintext)
        }
        return .failed
    }

    static func knownIdentity(_ imUid: String, _ deviceId: String, _ db: Database) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT identityKey FROM secretDevice WHERE imUid = ? AND deviceId = ?",
                          arguments: [imUid, deviceId])
    }
}

extension SecretVault.StoredSession<Data> {
    /// The session with its ratchet state decoded; nil for a damaged row.
    var session: SecretVault.Session? { RatchetSession(serialized: state).map(with) }
}

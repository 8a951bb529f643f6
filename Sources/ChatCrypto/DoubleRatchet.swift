import Crypto
import Foundation

/// Signal's Double Ratchet (https://signal.org/docs/specifications/doubleratchet/)
/// with X25519, HKDF-SHA256, HMAC-SHA256 and AES-256-GCM: one session
/// between two devices, a value the caller loads, uses and saves in one
/// store transaction (so no message key is ever used twice).
///
/// Byte layout (docs/protocol.md "Secret chats"):
/// - `KDF_RK(rk, dh) = HKDF-SHA256(ikm: dh, salt: rk, info: "Tongban ratchet v1", 64)` → new root key ‖ chain key.
/// - `KDF_CK(ck)`: message key `HMAC-SHA256(ck, 0x01)`, next chain key `HMAC-SHA256(ck, 0x02)`.
/// - A message key `mk` gives `HKDF-SHA256(ikm: mk, salt: 32 zero bytes, info: "Tongban message v1", 44)` →
///   AES-256-GCM key (32) ‖ nonce (12).
/// - Header: the sender's ratchet public key (32) ‖ previous chain length (UInt32 big-endian) ‖
///   message number (UInt32 big-endian): 40 bytes.
/// - The AEAD's associated data is the caller's `ad` ‖ header; the output is ciphertext ‖ 16-byte tag.
public struct RatchetSession: Codable, Sendable, CustomStringConvertible {
    /// Keys kept for messages skipped in a chain (out of order, dropped): at most this many in all.
    public static let maxSkip = 1_000

    var dhSelf: Data
    var dhRemote: Data?
    var rootKey: Data
    var sendChain: Data?
    var receiveChain: Data?
    var sent = 0
    var received = 0
    var previousChainLength = 0
    /// Message keys of skipped messages, by "remote ratchet key (base64) ‖ number".
    var skipped: [String: Data] = [:]
    /// The order they were kept in (the oldest go first when there are too many).
    var skippedOrder: [String] = []

    public var description: String { "RatchetSession(sent \(sent), received \(received), keys hidden)" }

    /// The initiator's session, from X3DH's secret and the responder's signed prekey.
    public static func initiator(secret: SymmetricKey, remoteRatchetKey: Data) throws -> RatchetSession {
        let mine = Curve25519.KeyAgreement.PrivateKey()
        let remote = try X3DH.publicAgreement(remoteRatchetKey)
        let (root, chain) = kdfRoot(secret.withUnsafeBytes { Data($0) }, try X3DH.dh(mine, remote))
        return RatchetSession(dhSelf: mine.rawRepresentation, dhRemote: remoteRatchetKey, rootKey: root, sendChain: chain)
    }

    /// The responder's session: its signed prekey is the first ratchet key.
    public static func responder(secret: SymmetricKey, keys: DeviceKeys) -> RatchetSession {
        RatchetSession(dhSelf: keys.signedPrekey, dhRemote: nil, rootKey: secret.withUnsafeBytes { Data($0) })
    }

    /// Seals `plaintext`; returns the header and the ciphertext.
    public mutating func encrypt(_ plaintext: Data, ad: Data) throws -> (header: Data, ciphertext: Data) {
        guard let chain = sendChain else { throw CryptoFailure.decryptionFailed }
        let (messageKey, next) = Self.kdfChain(chain)
        sendChain = next
        let mine = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: dhSelf)
        let header = Self.header(mine.publicKey.rawRepresentation, previous: previousChainLength, number: sent)
        sent += 1
        return (header, try Self.seal(plaintext, key: messageKey, ad: ad + header))
    }

    /// Opens a message. On any failure the session is left as it was.
    public mutating func decrypt(header: Data, ciphertext: Data, ad: Data) throws -> Data {
        let (remote, previous, number) = try Self.parse(header)
        let skippedId = Self.skippedKey(remote, number)
        if let key = skipped[skippedId] {
            let plain = try Self.open(ciphertext, key: key, ad: ad + header)
            skipped[skippedId] = nil
            skippedOrder.removeAll { $0 == skippedId }
            return plain
        }
        var trial = self
        if remote != trial.dhRemote {
            try trial.skip(until: previous)
            try trial.ratchet(remote)
        } else if number < trial.received {
            // Its key was used, or dropped with the oldest skipped ones.
            throw CryptoFailure.duplicate
        }
        try trial.skip(until: number)
        guard let chain = trial.receiveChain else { throw CryptoFailure.decryptionFailed }
        let (messageKey, next) = Self.kdfChain(chain)
        let plain = try Self.open(ciphertext, key: messageKey, ad: ad + header)
        trial.receiveChain = next
        trial.received += 1
        self = trial
        return plain
    }

    /// Keeps the keys of the messages before `until` in the receiving chain.
    private mutating func skip(until: Int) throws {
        guard let chain = receiveChain, let remote = dhRemote else { return }
        guard until - received <= Self.maxSkip else { throw CryptoFailure.tooManySkipped }
        var ck = chain
        while received < until {
            let (messageKey, next) = Self.kdfChain(ck)
            let id = Self.skippedKey(remote, received)
            skipped[id] = messageKey
            skippedOrder.append(id)
            ck = next
            received += 1
        }
        receiveChain = ck
        while skippedOrder.count > Self.maxSkip { skipped[skippedOrder.removeFirst()] = nil }
    }

    /// A new ratchet key from the other side: a receiving chain for it, then a new key pair and sending chain.
    private mutating func ratchet(_ remote: Data) throws {
        previousChainLength = sent
        sent = 0
        received = 0
        dhRemote = remote
        let remoteKey = try X3DH.publicAgreement(remote)
        let mine = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: dhSelf)
        (rootKey, receiveChain) = Self.kdfRoot(rootKey, try X3DH.dh(mine, remoteKey))
        let fresh = Curve25519.KeyAgreement.PrivateKey()
        dhSelf = fresh.rawRepresentation
        (rootKey, sendChain) = Self.kdfRoot(rootKey, try X3DH.dh(fresh, remoteKey))
    }

    // MARK: The functions of the specification

    static let rootInfo = Data("Tongban ratchet v1".utf8)
    static let messageInfo = Data("Tongban message v1".utf8)

    static func kdfRoot(_ rootKey: Data, _ dhOut: Data) -> (Data, Data) {
        let out = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: dhOut), salt: rootKey, info: rootInfo,
                                         outputByteCount: 64).withUnsafeBytes { Data($0) }
        // Fresh values, not slices: each starts at index 0 wherever it goes.
        return (Data(out.prefix(32)), Data(out.suffix(32)))
    }

    static func kdfChain(_ chainKey: Data) -> (messageKey: Data, next: Data) {
        let key = SymmetricKey(data: chainKey)
        return (Data(HMAC<SHA256>.authenticationCode(for: [0x01], using: key)),
                Data(HMAC<SHA256>.authenticationCode(for: [0x02], using: key)))
    }

    static func messageKeys(_ mk: Data) throws -> (SymmetricKey, AES.GCM.Nonce) {
        let out = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: mk), salt: Data(repeating: 0, count: 32),
                                         info: messageInfo, outputByteCount: 44).withUnsafeBytes { Data($0) }
        return (SymmetricKey(data: Data(out.prefix(32))), try AES.GCM.Nonce(data: Data(out.suffix(12))))
    }

    static func seal(_ plaintext: Data, key mk: Data, ad: Data) throws -> Data {
        let (key, nonce) = try messageKeys(mk)
        let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: ad)
        return Data(box.ciphertext) + box.tag
    }

    static func open(_ sealed: Data, key mk: Data, ad: Data) throws -> Data {
        guard sealed.count >= 16 else { throw CryptoFailure.decryptionFailed }
        let (key, nonce) = try messageKeys(mk)
        do {
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: Data(sealed.dropLast(16)), tag: Data(sealed.suffix(16)))
            return try AES.GCM.open(box, using: key, authenticating: ad)
        } catch {
            throw CryptoFailure.decryptionFailed
        }
    }

    static func header(_ key: Data, previous: Int, number: Int) -> Data {
        var out = key
        for value in [previous, number] { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian) { out += $0 } }
        return out
    }

    static func parse(_ header: Data) throws -> (key: Data, previous: Int, number: Int) {
        guard header.count == 40 else { throw CryptoFailure.malformedHeader }
        let bytes = [UInt8](header)
        func u32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (Data(bytes[0..<32]), u32(32), u32(36))
    }

    static func skippedKey(_ remote: Data, _ number: Int) -> String { remote.base64EncodedString() + "#" + String(number) }
}

extension RatchetSession {
    /// A compact binary form for storage (a session is saved at every step):
    /// version 1, then dhSelf, dhRemote, rootKey, sendChain, receiveChain
    /// (each a length byte and its bytes), sent, received, previous chain
    /// length (4 bytes big-endian each), then the skipped keys in the order
    /// they were kept (a 2-byte length and the UTF-8 of the id, then 32 bytes).
    public var serialized: Data {
        var out = Data([1])
        func bytes(_ d: Data?) { out.append(UInt8(d?.count ?? 0)); if let d { out += d } }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian) { out += $0 } }
        for d in [dhSelf, dhRemote, rootKey, sendChain, receiveChain] { bytes(d) }
        for v in [sent, received, previousChainLength, skippedOrder.count] { u32(v) }
        for id in skippedOrder {
            let utf8 = Data(id.utf8)
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: utf8.count).bigEndian) { out += $0 }
            out += utf8
            out += skipped[id] ?? Data(count: 32)
        }
        return out
    }

    /// The session `serialized` wrote; nil for anything else (a damaged row).
    public init?(serialized data: Data) {
        let b = [UInt8](data)
        var i = 0
        guard b.first == 1 else { return nil }
        i = 1
        func bytes() -> Data?? {
            guard i < b.count else { return .none }
            let n = Int(b[i]); i += 1
            guard i + n <= b.count else { return .none }
            defer { i += n }
            return .some(n == 0 ? nil : Data(b[i..<(i + n)]))
        }
        func u32() -> Int? {
            guard i + 4 <= b.count else { return nil }
            defer { i += 4 }
            return b[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        guard case .some(let dhSelf?) = bytes(), case .some(let dhRemote) = bytes(), case .some(let rootKey?) = bytes(),
              case .some(let sendChain) = bytes(), case .some(let receiveChain) = bytes(),
              let sent = u32(), let received = u32(), let previous = u32(), let count = u32(), count <= 10 * Self.maxSkip
        else { return nil }
        var skipped: [String: Data] = [:], order: [String] = []
        for _ in 0..<count {
            guard i + 2 <= b.count else { return nil }
            let n = Int(b[i]) << 8 | Int(b[i + 1]); i += 2
            guard i + n + 32 <= b.count, let id = String(bytes: b[i..<(i + n)], encoding: .utf8) else { return nil }
            i += n
            skipped[id] = Data(b[i..<(i + 32)]); i += 32
            order.append(id)
        }
        guard i == b.count else { return nil }
        self.init(dhSelf: dhSelf, dhRemote: dhRemote, rootKey: rootKey, sendChain: sendChain, receiveChain: receiveChain,
                  sent: sent, received: received, previousChainLength: previous, skipped: skipped, skippedOrder: order)
    }
}

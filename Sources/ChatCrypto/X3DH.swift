import Crypto
import Foundation

/// Signal's X3DH key agreement (https://signal.org/docs/specifications/x3dh/)
/// with X25519 and SHA-256: the first message of a session carries the
/// initiator's identity and ephemeral keys and which prekeys it used; both
/// sides derive the same 32-byte secret and associated data.
///
/// Byte layout (docs/protocol.md "Secret chats"): `SK = HKDF-SHA256(ikm: F ‖
/// DH1 ‖ DH2 ‖ DH3 [‖ DH4], salt: 32 zero bytes, info: "Tongban X3DH v1",
/// 32 bytes)`, `F` = 32 bytes of 0xFF; `AD = IK_initiator ‖ IK_responder`
/// (raw public keys). The signed prekey is signed with a separate Ed25519
/// key (swift-crypto has no XEdDSA), whose signature is checked first.
public enum X3DH {
    static let info = Data("Tongban X3DH v1".utf8)

    /// What the initiator sends with its first message.
    public struct Start: Codable, Sendable, Hashable {
        /// The initiator's identity key (raw X25519 public).
        public var identityKey: Data
        /// The ephemeral key made for this session (raw X25519 public).
        public var baseKey: Data
        public var signedPrekeyId: Int
        /// nil when the responder had no one-time prekey left.
        public var oneTimePrekeyId: Int?
        public init(identityKey: Data, baseKey: Data, signedPrekeyId: Int, oneTimePrekeyId: Int?) {
            self.identityKey = identityKey; self.baseKey = baseKey
            self.signedPrekeyId = signedPrekeyId; self.oneTimePrekeyId = oneTimePrekeyId
        }
    }

    /// The initiator's side: checks the bundle's signature, then derives the
    /// shared secret. Also returns the associated data and what to send.
    public static func initiate(_ mine: DeviceKeys, with theirs: PrekeyBundle) throws -> (secret: SymmetricKey, ad: Data, start: Start) {
        let signing = try publicSigning(theirs.signingKey)
        guard theirs.signature.count == 64, signing.isValidSignature(theirs.signature, for: theirs.signedPrekey.key) else {
            throw CryptoFailure.badSignature
        }
        let identity = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine.identity)
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let theirIdentity = try publicAgreement(theirs.identityKey)
        let theirPrekey = try publicAgreement(theirs.signedPrekey.key)
        var ikm = Data(repeating: 0xFF, count: 32)
        ikm += try dh(identity, theirPrekey)
        ikm += try dh(ephemeral, theirIdentity)
        ikm += try dh(ephemeral, theirPrekey)
        if let otk = theirs.oneTimePrekey { ikm += try dh(ephemeral, try publicAgreement(otk.key)) }
        let start = Start(identityKey: identity.publicKey.rawRepresentation, baseKey: ephemeral.publicKey.rawRepresentation,
                          signedPrekeyId: theirs.signedPrekey.id, oneTimePrekeyId: theirs.oneTimePrekey?.id)
        return (derive(ikm), identity.publicKey.rawRepresentation + theirs.identityKey, start)
    }

    /// The responder's side: the same secret from the initiator's `start`.
    /// The one-time prekey it names is used up here; one already gone (a
    /// replayed first message) is refused.
    public static func respond(_ mine: inout DeviceKeys, to start: Start) throws -> (secret: SymmetricKey, ad: Data) {
        guard start.signedPrekeyId == mine.signedPrekeyId else { throw CryptoFailure.decryptionFailed }
        let identity = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine.identity)
        let prekey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine.signedPrekey)
        let theirIdentity = try publicAgreement(start.identityKey)
        let base = try publicAgreement(start.baseKey)
        var ikm = Data(repeating: 0xFF, count: 32)
        ikm += try dh(prekey, theirIdentity)
        ikm += try dh(identity, base)
        ikm += try dh(prekey, base)
        if let id = start.oneTimePrekeyId {
            guard let raw = mine.takeOneTimePrekey(id) else { throw CryptoFailure.duplicate }
            ikm += try dh(try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw), base)
        }
        return (derive(ikm), start.identityKey + identity.publicKey.rawRepresentation)
    }

    static func derive(_ ikm: Data) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: Data(repeating: 0, count: 32), info: info,
                               outputByteCount: 32)
    }

    static func dh(_ mine: Curve25519.KeyAgreement.PrivateKey, _ theirs: Curve25519.KeyAgreement.PublicKey) throws -> Data {
        try mine.sharedSecretFromKeyAgreement(with: theirs).withUnsafeBytes { Data($0) }
    }

    static func publicAgreement(_ raw: Data) throws -> Curve25519.KeyAgreement.PublicKey {
        guard raw.count == 32, let key = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) else {
            throw CryptoFailure.malformedKey
        }
        return key
    }

    static func publicSigning(_ raw: Data) throws -> Curve25519.Signing.PublicKey {
        guard raw.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw CryptoFailure.malformedKey
        }
        return key
    }
}

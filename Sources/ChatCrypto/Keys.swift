import Crypto
import Foundation

/// Why a cryptographic step failed. The cases never carry key material, so
/// an error can be logged or shown as it is.
public enum CryptoFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// A public key or signature of the wrong length, or not a point.
    case malformedKey
    /// The signed prekey's signature does not verify with the signing key.
    case badSignature
    /// The ciphertext or its associated data was changed, or the key is not the one it was sealed with.
    case decryptionFailed
    /// A message whose key was used already (a duplicate or a replay).
    case duplicate
    /// More messages skipped in one chain than a session keeps keys for.
    case tooManySkipped
    /// A header that does not decode.
    case malformedHeader

    public var description: String {
        switch self {
        case .malformedKey: "a key or signature is malformed"
        case .badSignature: "the signed prekey's signature does not verify"
        case .decryptionFailed: "the message could not be decrypted"
        case .duplicate: "the message was decrypted before"
        case .tooManySkipped: "too many messages were skipped"
        case .malformedHeader: "the message header is malformed"
        }
    }
}

/// A prekey's public half and its id.
public struct PublicPrekey: Codable, Sendable, Hashable {
    public var id: Int
    /// Raw X25519 public key, 32 bytes.
    public var key: Data
    public init(id: Int, key: Data) { self.id = id; self.key = key }
}

/// A device's published keys (PROTOCOL.md v4 "Secret chats"): what another
/// device needs to start a session with it.
public struct PrekeyBundle: Codable, Sendable, Hashable {
    /// X25519, raw 32 bytes.
    public var identityKey: Data
    /// Ed25519, raw 32 bytes.
    public var signingKey: Data
    public var signedPrekey: PublicPrekey
    /// Ed25519 signature of `signedPrekey.key`, 64 bytes.
    public var signature: Data
    /// nil once the device's one-time prekeys ran out (X3DH still works without).
    public var oneTimePrekey: PublicPrekey?
    public init(identityKey: Data, signingKey: Data, signedPrekey: PublicPrekey, signature: Data, oneTimePrekey: PublicPrekey?) {
        self.identityKey = identityKey; self.signingKey = signingKey; self.signedPrekey = signedPrekey
        self.signature = signature; self.oneTimePrekey = oneTimePrekey
    }
}

/// One device's private keys: its identity (X25519), its signing key
/// (Ed25519), its signed prekey and the one-time prekeys not used yet. Stored
/// only in the user's own store; `description` never shows a private key.
public struct DeviceKeys: Codable, Sendable, CustomStringConvertible {
    var identity: Data
    var signing: Data
    public private(set) var signedPrekeyId: Int
    var signedPrekey: Data
    public private(set) var signedPrekeySignature: Data
    /// Private one-time prekeys by id.
    var oneTimePrekeys: [Int: Data]
    /// The next one-time prekey's id.
    var nextPrekeyId: Int

    /// New keys: identity, signing key, a signed prekey and `oneTime` one-time prekeys.
    public static func generate(oneTime: Int = 100) -> DeviceKeys {
        let signing = Curve25519.Signing.PrivateKey()
        let prekey = Curve25519.KeyAgreement.PrivateKey()
        var keys = DeviceKeys(identity: Curve25519.KeyAgreement.PrivateKey().rawRepresentation,
                              signing: signing.rawRepresentation, signedPrekeyId: 1,
                              signedPrekey: prekey.rawRepresentation,
                              signedPrekeySignature: (try? signing.signature(for: prekey.publicKey.rawRepresentation)) ?? Data(),
                              oneTimePrekeys: [:], nextPrekeyId: 1)
        _ = keys.addOneTimePrekeys(oneTime)
        return keys
    }

    public var description: String { "DeviceKeys(identity \(identityPublic.base64EncodedString().prefix(8))…, private keys hidden)" }

    public var identityPublic: Data { (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: identity))?.publicKey.rawRepresentation ?? Data() }
    public var signingPublic: Data { (try? Curve25519.Signing.PrivateKey(rawRepresentation: signing))?.publicKey.rawRepresentation ?? Data() }
    public var signedPrekeyPublic: PublicPrekey {
        PublicPrekey(id: signedPrekeyId,
                     key: (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: signedPrekey))?.publicKey.rawRepresentation ?? Data())
    }
    /// The one-time prekeys not used yet, by id.
    public var oneTimePublic: [PublicPrekey] {
        oneTimePrekeys.keys.sorted().compactMap { id in
            (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: oneTimePrekeys[id] ?? Data())).map {
                PublicPrekey(id: id, key: $0.publicKey.rawRepresentation)
            }
        }
    }

    /// Makes `count` more one-time prekeys; returns their public halves.
    public mutating func addOneTimePrekeys(_ count: Int) -> [PublicPrekey] {
        var added: [PublicPrekey] = []
        for _ in 0..<max(0, count) {
            let key = Curve25519.KeyAgreement.PrivateKey()
            oneTimePrekeys[nextPrekeyId] = key.rawRepresentation
            added.append(PublicPrekey(id: nextPrekeyId, key: key.publicKey.rawRepresentation))
            nextPrekeyId += 1
        }
        return added
    }

    /// A new signed prekey replaces the old one.
    public mutating func rotateSignedPrekey() throws {
        let signingKey = try Curve25519.Signing.PrivateKey(rawRepresentation: signing)
        let prekey = Curve25519.KeyAgreement.PrivateKey()
        signedPrekey = prekey.rawRepresentation
        signedPrekeySignature = try signingKey.signature(for: prekey.publicKey.rawRepresentation)
        signedPrekeyId += 1
    }

    /// The bundle another device claims, with one of the one-time prekeys (or none).
    public func bundle(oneTimePrekeyId: Int?) -> PrekeyBundle {
        PrekeyBundle(identityKey: identityPublic, signingKey: signingPublic, signedPrekey: signedPrekeyPublic,
                     signature: signedPrekeySignature,
                     oneTimePrekey: oneTimePrekeyId.flatMap { id in oneTimePublic.first { $0.id == id } })
    }

    /// Takes a one-time prekey out (it is used once); nil when it is not here (used before: a replay).
    mutating func takeOneTimePrekey(_ id: Int) -> Data? { oneTimePrekeys.removeValue(forKey: id) }
}

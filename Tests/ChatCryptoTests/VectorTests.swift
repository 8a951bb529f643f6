import Crypto
import Foundation
import Testing
@testable import ChatCrypto

/// Test vectors for a second implementation (docs/protocol.md "Secret chats:
/// the cryptography"): every derivation from fixed inputs, byte for byte.
/// X25519 keys are fixed private scalars. Every value was checked against an
/// independent implementation (Python's `cryptography` and `hmac`) when it was written.
@Suite struct VectorTests {
    static func hex(_ d: Data) -> String { d.map { String(format: "%02x", $0) }.joined() }
    static func bytes(_ b: UInt8) -> Data { Data(repeating: b, count: 32) }
    static func key(_ b: UInt8) throws -> Curve25519.KeyAgreement.PrivateKey {
        try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: bytes(b))
    }

    @Test func ratchetDerivations() throws {
        let (root, chain) = RatchetSession.kdfRoot(Self.bytes(0x01), Self.bytes(0x02))
        #expect(Self.hex(root) == "9088bf88e8ee8c6d996d5eb9df549eede0309ef0fb0f13a598610d0af673f28b")
        #expect(Self.hex(chain) == "61ed08fc60f9f14a91b54d49a1d6646c4904a2fa94c39453cd3cb742bd62b1f7")
        let (mk, next) = RatchetSession.kdfChain(Self.bytes(0x03))
        #expect(Self.hex(mk) == "aa6fa3f949be2b2cc7de5a18e7f65fee5fb78488f588d53196a63e66ad67ad12")
        #expect(Self.hex(next) == "cfbf8f5595e5f186a92161efb3ebb946d3aa706c2df70eed5152741bdb1e7bde")
        let (aes, nonce) = try RatchetSession.messageKeys(Self.bytes(0x04))
        #expect(Self.hex(aes.withUnsafeBytes { Data($0) }) == "ce46818e0a20dcf99346fda2fb9597cab0ba0b0ecf9b4d50fc5d00243b39a686")
        #expect(Self.hex(Data(nonce)) == "2e18ff5458dc8ae711bd457a")
        let header = RatchetSession.header(Self.bytes(0x05), previous: 2, number: 7)
        #expect(Self.hex(header) == Self.hex(Self.bytes(0x05)) + "0000000200000007")
        let sealed = try RatchetSession.seal(Data("你好 🙂".utf8), key: Self.bytes(0x04), ad: Data("ad".utf8) + header)
        #expect(Self.hex(sealed) == "dd6be1797d71b19a3da7d1b71edc5f4e138b534524b52d9a052eef")
    }

    @Test func x3dhSecretFromFixedKeys() throws {
        // Bob (responder): identity 0x11…, signed prekey 0x12… (id 1), one-time prekey 0x13… (id 1);
        // Alice (initiator): identity 0x21…, base key 0x22….
        let signing = try Curve25519.Signing.PrivateKey(rawRepresentation: Self.bytes(0x14))
        let spk = try Self.key(0x12)
        var bob = DeviceKeys(identity: Self.bytes(0x11), signing: Self.bytes(0x14), signedPrekeyId: 1, signedPrekey: Self.bytes(0x12),
                             signedPrekeySignature: try signing.signature(for: spk.publicKey.rawRepresentation),
                             oneTimePrekeys: [1: Self.bytes(0x13)], nextPrekeyId: 2)
        let start = X3DH.Start(identityKey: try Self.key(0x21).publicKey.rawRepresentation,
                               baseKey: try Self.key(0x22).publicKey.rawRepresentation, signedPrekeyId: 1, oneTimePrekeyId: 1)
        let (secret, ad) = try X3DH.respond(&bob, to: start)
        #expect(Self.hex(secret.withUnsafeBytes { Data($0) }) == "a54e34769964a68fe9c6eef461daf173ff4cf9d510c5bafbaac6b9988decd0e5")
        #expect(ad == start.identityKey + (try Self.key(0x11)).publicKey.rawRepresentation)
        // The same without a one-time prekey (none was left to claim).
        var again = bob
        let (noOTK, _) = try X3DH.respond(&again, to: X3DH.Start(identityKey: start.identityKey, baseKey: start.baseKey,
                                                                  signedPrekeyId: 1, oneTimePrekeyId: nil))
        #expect(Self.hex(noOTK.withUnsafeBytes { Data($0) }) == "9fb125bc0fdcbfede2c07b8e3409e4887651dfa870a5c0a6fa1d656bbf4f94d5")
        #expect(Self.hex(start.identityKey) == "7d34a4815fa6b982535e60af3bd9b49556816080f1641ff81d2b7c8ae8268a44" && Self.hex(start.baseKey) == "0faa684ed28867b97f4a6a2dee5df8ce974e76b7018e3f22a1c4cf2678570f20")
    }

    /// The stored form of a session: what it reads back opens what is still on its way.
    @Test func aSessionStoredMidwayReadsBackWhole() throws {
        let alice = DeviceKeys.generate(oneTime: 1)
        var bob = DeviceKeys.generate(oneTime: 1)
        let (secret, ad, start) = try X3DH.initiate(alice, with: bob.bundle(oneTimePrekeyId: bob.oneTimePublic.first?.id))
        var sender = try RatchetSession.initiator(secret: secret, remoteRatchetKey: bob.signedPrekeyPublic.key)
        let (theirs, _) = try X3DH.respond(&bob, to: start)
        var receiver = RatchetSession.responder(secret: theirs, keys: bob)
        let sent = try (0..<5).map { try sender.encrypt(Data("第\($0)条".utf8), ad: ad) }
        // The last arrives first: four skipped keys are kept.
        _ = try receiver.decrypt(header: sent[4].header, ciphertext: sent[4].ciphertext, ad: ad)
        var stored = try #require(RatchetSession(serialized: receiver.serialized))
        #expect(stored.serialized == receiver.serialized)
        for n in [2, 0, 3, 1] {
            #expect(try stored.decrypt(header: sent[n].header, ciphertext: sent[n].ciphertext, ad: ad) == Data("第\(n)条".utf8))
        }
        #expect(RatchetSession(serialized: Data([1, 2, 3])) == nil, "a damaged row is no session")
        #expect(RatchetSession(serialized: receiver.serialized + Data([0])) == nil)
    }
}

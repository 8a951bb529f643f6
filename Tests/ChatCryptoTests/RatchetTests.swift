import Crypto
import Foundation
import Testing
@testable import ChatCrypto

/// X3DH and the Double Ratchet against the properties their specifications
/// promise, and the safety number against PROTOCOL.md's vector.
@Suite struct RatchetTests {
    /// Alice starts a session with Bob's bundle; Bob answers her first message.
    static func pair(oneTime: Bool = true) throws -> (alice: RatchetSession, bob: RatchetSession, ad: Data, bobKeys: DeviceKeys) {
        let aliceKeys = DeviceKeys.generate(oneTime: 2)
        var bobKeys = DeviceKeys.generate(oneTime: oneTime ? 2 : 0)
        let bundle = bobKeys.bundle(oneTimePrekeyId: bobKeys.oneTimePublic.first?.id)
        let (secret, ad, start) = try X3DH.initiate(aliceKeys, with: bundle)
        let alice = try RatchetSession.initiator(secret: secret, remoteRatchetKey: bundle.signedPrekey.key)
        let (bobSecret, bobAD) = try X3DH.respond(&bobKeys, to: start)
        #expect(bobAD == ad, "both sides bind the same identities")
        #expect(secret == bobSecret, "X3DH gives both sides one secret")
        return (alice, RatchetSession.responder(secret: bobSecret, keys: bobKeys), ad, bobKeys)
    }

    static func text(_ s: String) -> Data { Data(s.utf8) }

    @Test func messagesGoBothWaysAndTheKeysMoveOn() throws {
        var (alice, bob, ad, _) = try Self.pair()
        for round in 0..<5 {
            let m = try alice.encrypt(Self.text("你好 \(round)"), ad: ad)
            #expect(try bob.decrypt(header: m.header, ciphertext: m.ciphertext, ad: ad) == Self.text("你好 \(round)"))
            let r = try bob.encrypt(Self.text("收到 \(round)"), ad: ad)
            #expect(try alice.decrypt(header: r.header, ciphertext: r.ciphertext, ad: ad) == Self.text("收到 \(round)"))
        }
        // The same text twice is two different ciphertexts.
        let a = try alice.encrypt(Self.text("同样"), ad: ad), b = try alice.encrypt(Self.text("同样"), ad: ad)
        #expect(a.ciphertext != b.ciphertext)
    }

    @Test func outOfOrderDuplicatedAndDroppedMessages() throws {
        var (alice, bob, ad, _) = try Self.pair()
        let sent = try (0..<10).map { try alice.encrypt(Self.text("m\($0)"), ad: ad) }
        // 9 first, then 2, then 0: the skipped keys open them.
        for i in [9, 2, 0] {
            #expect(try bob.decrypt(header: sent[i].header, ciphertext: sent[i].ciphertext, ad: ad) == Self.text("m\(i)"))
        }
        // A duplicate is refused, and the session is unharmed.
        #expect(throws: CryptoFailure.self) { try bob.decrypt(header: sent[2].header, ciphertext: sent[2].ciphertext, ad: ad) }
        #expect(try bob.decrypt(header: sent[5].header, ciphertext: sent[5].ciphertext, ad: ad) == Self.text("m5"))
        // 1, 3, 4, 6, 7, 8 never come: the conversation goes on.
        let reply = try bob.encrypt(Self.text("还在"), ad: ad)
        #expect(try alice.decrypt(header: reply.header, ciphertext: reply.ciphertext, ad: ad) == Self.text("还在"))
        let next = try alice.encrypt(Self.text("在"), ad: ad)
        #expect(try bob.decrypt(header: next.header, ciphertext: next.ciphertext, ad: ad) == Self.text("在"))
    }

    @Test func atMostAThousandSkippedKeys() throws {
        var (alice, bob, ad, _) = try Self.pair()
        var last = try alice.encrypt(Self.text("0"), ad: ad)
        for i in 1...1_001 { last = try alice.encrypt(Self.text("\(i)"), ad: ad) }
        #expect(throws: CryptoFailure.tooManySkipped) { try bob.decrypt(header: last.header, ciphertext: last.ciphertext, ad: ad) }
        var (alice2, bob2, ad2, _) = try Self.pair()
        for i in 0..<1_000 { _ = try alice2.encrypt(Self.text("\(i)"), ad: ad2) }
        let ok = try alice2.encrypt(Self.text("1000"), ad: ad2)
        #expect(try bob2.decrypt(header: ok.header, ciphertext: ok.ciphertext, ad: ad2) == Self.text("1000"), "1,000 skipped is allowed")
        #expect(bob2.skipped.count == 1_000)
    }

    @Test func aChangedHeaderCiphertextOrAssociatedDataIsRefused() throws {
        var (alice, bob, ad, _) = try Self.pair()
        let m = try alice.encrypt(Self.text("原文"), ad: ad)
        var header = m.header
        header[39] ^= 1
        #expect(throws: CryptoFailure.self) { try bob.decrypt(header: header, ciphertext: m.ciphertext, ad: ad) }
        var body = m.ciphertext
        body[0] ^= 1
        #expect(throws: CryptoFailure.self) { try bob.decrypt(header: m.header, ciphertext: body, ad: ad) }
        #expect(throws: CryptoFailure.self) { try bob.decrypt(header: m.header, ciphertext: m.ciphertext, ad: ad + Data([1])) }
        #expect(throws: CryptoFailure.malformedHeader) { try bob.decrypt(header: Data(), ciphertext: m.ciphertext, ad: ad) }
        #expect(try bob.decrypt(header: m.header, ciphertext: m.ciphertext, ad: ad) == Self.text("原文"), "failures left the session as it was")
    }

    @Test func forwardSecrecyAStateCapturedLaterCannotOpenEarlierMessages() throws {
        var (alice, bob, ad, _) = try Self.pair()
        var captured: [(header: Data, ciphertext: Data)] = []
        for i in 0..<200 {
            let m = try alice.encrypt(Self.text("m\(i)"), ad: ad)
            if i < 100 { captured.append(m) }
            _ = try bob.decrypt(header: m.header, ciphertext: m.ciphertext, ad: ad)
            if i % 20 == 19 {
                let r = try bob.encrypt(Self.text("ok"), ad: ad)
                _ = try alice.decrypt(header: r.header, ciphertext: r.ciphertext, ad: ad)
            }
        }
        // The attacker takes Bob's whole state at message 200.
        let stolen = try JSONDecoder().decode(RatchetSession.self, from: JSONEncoder().encode(bob))
        for m in captured {
            var s = stolen
            #expect(throws: CryptoFailure.self) { try s.decrypt(header: m.header, ciphertext: m.ciphertext, ad: ad) }
        }
    }

    @Test func afterOneRoundTripACapturedStateCannotOpenNewMessages() throws {
        var (alice, bob, ad, _) = try Self.pair()
        let first = try alice.encrypt(Self.text("hi"), ad: ad)
        _ = try bob.decrypt(header: first.header, ciphertext: first.ciphertext, ad: ad)
        let stolen = bob
        // One round trip of Bob's: he receives a message with Alice's new
        // ratchet key and answers with a key pair of his own made after the
        // theft; what Alice sends after that is out of the thief's reach.
        let r1 = try bob.encrypt(Self.text("hello"), ad: ad)
        _ = try alice.decrypt(header: r1.header, ciphertext: r1.ciphertext, ad: ad)
        let a1 = try alice.encrypt(Self.text("still readable by the thief"), ad: ad)
        _ = try bob.decrypt(header: a1.header, ciphertext: a1.ciphertext, ad: ad)
        let r2 = try bob.encrypt(Self.text("fresh key"), ad: ad)
        _ = try alice.decrypt(header: r2.header, ciphertext: r2.ciphertext, ad: ad)
        let later = try alice.encrypt(Self.text("secret"), ad: ad)
        var s = stolen
        #expect(throws: CryptoFailure.self) { try s.decrypt(header: later.header, ciphertext: later.ciphertext, ad: ad) }
        #expect(try bob.decrypt(header: later.header, ciphertext: later.ciphertext, ad: ad) == Self.text("secret"))
    }

    @Test func withNoOneTimePrekeyLeftASessionStillStarts() throws {
        var (alice, bob, ad, _) = try Self.pair(oneTime: false)
        let m = try alice.encrypt(Self.text("没有一次性预密钥"), ad: ad)
        #expect(try bob.decrypt(header: m.header, ciphertext: m.ciphertext, ad: ad) == Self.text("没有一次性预密钥"))
    }

    @Test func aReplayedFirstMessageAndABadSignatureAreRefused() throws {
        let aliceKeys = DeviceKeys.generate(oneTime: 0)
        var bobKeys = DeviceKeys.generate(oneTime: 1)
        let bundle = bobKeys.bundle(oneTimePrekeyId: bobKeys.oneTimePublic.first?.id)
        let (_, _, start) = try X3DH.initiate(aliceKeys, with: bundle)
        _ = try X3DH.respond(&bobKeys, to: start)
        #expect(throws: CryptoFailure.duplicate) { try X3DH.respond(&bobKeys, to: start) }
        var forged = bundle
        forged.signature[0] ^= 1
        #expect(throws: CryptoFailure.badSignature) { try X3DH.initiate(aliceKeys, with: forged) }
        var swapped = bundle
        swapped.signedPrekey.key = DeviceKeys.generate(oneTime: 0).signedPrekeyPublic.key
        #expect(throws: CryptoFailure.badSignature) { try X3DH.initiate(aliceKeys, with: swapped) }
    }

    @Test func privateKeysNeverShowInDescriptions() throws {
        let keys = DeviceKeys.generate(oneTime: 1)
        let (_, bob, _, _) = try Self.pair()
        for text in [keys.description, String(describing: keys), bob.description, "\(CryptoFailure.decryptionFailed)"] {
            #expect(!text.contains(keys.identity.base64EncodedString()) && !text.contains(keys.signing.base64EncodedString()))
            #expect(!text.contains(bob.rootKey.base64EncodedString()))
        }
    }

    @Test func theSafetyNumberMatchesProtocolMdsVector() {
        let alice = SafetyNumber.Device(identityKey: Data(repeating: 0x01, count: 32), signingKey: Data(repeating: 0x02, count: 32))
        let bob = SafetyNumber.Device(identityKey: Data(repeating: 0x03, count: 32), signingKey: Data(repeating: 0x04, count: 32))
        let digits = SafetyNumber.digits((uid: 1, devices: [alice]), (uid: 2, devices: [bob]))
        #expect(SafetyNumber.grouped(digits) == "30316 01429 46352 62569 79473 11633 42961 18742 80169 48717 08910 82586")
        #expect(SafetyNumber.digits((uid: 2, devices: [bob]), (uid: 1, devices: [alice])) == digits, "the same on both sides")
    }
}

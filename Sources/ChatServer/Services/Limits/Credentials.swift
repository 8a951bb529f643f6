import Crypto
import Foundation
import _CryptoExtras

/// Password hashes, bearer tokens and comparisons that take the same time
/// whatever the bytes.
enum Credentials {
    static func hashPassword(_ password: String, salt: Data, rounds: Int) throws -> Data {
        // The checked API insists on 210,000; rounds below 100,000 are refused above.
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Data(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: 32, unsafeUncheckedRounds: max(rounds, 100_000))
        return key.withUnsafeBytes { Data($0) }
    }

    static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }

    /// What the database keeps of a token: a leaked database signs no one in.
    static func tokenHash(_ token: String) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }
}

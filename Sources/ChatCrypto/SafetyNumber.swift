import Crypto
import Foundation

/// The safety number (安全码) two people compare (PROTOCOL.md v4): 60 digits,
/// the same on both sides, from each person's devices' identity and
/// signing keys.
public enum SafetyNumber {
    /// One device's keys as the safety number reads them (raw 32-byte public keys).
    public struct Device: Sendable, Hashable {
        public var identityKey: Data
        public var signingKey: Data
        public init(identityKey: Data, signingKey: Data) { self.identityKey = identityKey; self.signingKey = signingKey }
    }

    /// Per person: `K` = their devices' `identityKey ‖ signingKey`, sorted by
    /// the identity key's bytes; `h = SHA-512(0x00 0x00 ‖ K ‖ imUid)`, then
    /// 5,199 times `h = SHA-512(h ‖ K)`; the first 30 bytes as six 5-byte
    /// big-endian numbers mod 100,000, five digits each. The person with the
    /// smaller numeric uid gives the first 30 digits.
    public static func digits(_ a: (uid: Int, devices: [Device]), _ b: (uid: Int, devices: [Device])) -> String {
        let (first, second) = a.uid <= b.uid ? (a, b) : (b, a)
        return half(uid: first.uid, devices: first.devices) + half(uid: second.uid, devices: second.devices)
    }

    /// `digits` in 12 groups of five, as the screen shows them.
    public static func grouped(_ digits: String) -> String {
        stride(from: 0, to: digits.count, by: 5).map { i in
            let start = digits.index(digits.startIndex, offsetBy: i)
            return String(digits[start..<digits.index(start, offsetBy: min(5, digits.count - i))])
        }.joined(separator: " ")
    }

    static func half(uid: Int, devices: [Device]) -> String {
        let sorted = devices.sorted { $0.identityKey.lexicographicallyPrecedes($1.identityKey) }
        let k = sorted.reduce(into: Data()) { $0 += $1.identityKey + $1.signingKey }
        var h = Data(SHA512.hash(data: Data([0, 0]) + k + Data("tb_\(uid)".utf8)))
        for _ in 0..<5_199 { h = Data(SHA512.hash(data: h + k)) }
        let bytes = [UInt8](h.prefix(30))
        return (0..<6).map { chunk in
            let n = bytes[(chunk * 5)..<(chunk * 5 + 5)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000
            let s = String(n)
            return String(repeating: "0", count: 5 - s.count) + s
        }.joined()
    }
}

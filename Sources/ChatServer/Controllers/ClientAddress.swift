import Foundation
import NIOCore

/// The client address the per-address limits count by (PROTOCOL.md v4):
/// the peer, or, when the peer is a trusted proxy, the rightmost
/// `X-Forwarded-For` entry that is not one. IPv6 addresses count per /64.
struct ClientAddress: Sendable {
    let trusted: [Network]

    init(trustedProxies: [String]) {
        trusted = trustedProxies.compactMap(Network.init)
    }

    /// `peer`: the connection's address (nil in-process: counted as "local").
    func resolve(peer: String?, forwardedFor: String?) -> String {
        guard let peer, let peerIP = IP(peer) else { return "local" }
        var client = peerIP
        if isTrusted(peerIP), let header = forwardedFor {
            // Rightmost first: each proxy appends the address it heard from.
            for entry in header.split(separator: ",").reversed() {
                guard let ip = IP(String(entry).trimmingCharacters(in: .whitespaces)) else { break }
                client = ip
                if !isTrusted(ip) { break }
            }
        }
        return client.bucket
    }

    private func isTrusted(_ ip: IP) -> Bool { trusted.contains { $0.contains(ip) } }

    /// An IPv4 or IPv6 address as 16 bytes (IPv4 mapped).
    struct IP: Sendable {
        let bytes: [UInt8]
        let isV4: Bool

        init?(_ text: String) {
            var text = text
            if text.hasPrefix("[") { text = String(text.dropFirst().prefix { $0 != "]" }) }
            if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                bytes = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) }
                isV4 = true
            } else if inet_pton(AF_INET6, text, &v6) == 1 {
                let b = withUnsafeBytes(of: &v6) { Array($0) }
                isV4 = b[0..<10].allSatisfy { $0 == 0 } && b[10] == 0xFF && b[11] == 0xFF
                bytes = b
            } else {
                return nil
            }
        }

        /// What the limits count by: the IPv4 address, or the IPv6 /64.
        var bucket: String {
            if isV4 { return bytes[12...].map(String.init).joined(separator: ".") }
            return stride(from: 0, to: 8, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":") + "::/64"
        }
    }

    /// An address block, `a.b.c.d/n`, `x::y/n` or a single address.
    struct Network: Sendable {
        let base: IP
        let prefix: Int

        init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard let ip = IP(parts[0]) else { return nil }
            base = ip
            let full = ip.isV4 ? 32 : 128
            let given = parts.count == 2 ? Int(parts[1]) : full
            guard let given, (0...full).contains(given) else { return nil }
            prefix = ip.isV4 ? given + 96 : given
        }

        func contains(_ ip: IP) -> Bool {
            var left = prefix
            for i in 0..<16 where left > 0 {
                let bits = min(8, left)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if base.bytes[i] & mask != ip.bytes[i] & mask { return false }
                left -= bits
            }
            return true
        }
    }
}

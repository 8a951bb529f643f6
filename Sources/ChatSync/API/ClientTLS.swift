import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Synchronization

/// Which certificates `https://` and `wss://` trust: the system's store,
/// plus one CA file when given (`--ca-file`, `TONGBAN_CA_FILE`, or the one
/// a login was made with): a team's own CA, or a test's self-signed one.
public enum ClientTLS {
    private static let state = Mutex<(caFile: String?, clients: [String: HTTPClient])>((nil, [:]))

    /// The CA file that APIClients made from now on trust besides the system's store.
    public static var caFile: String? {
        get { state.withLock { $0.caFile } }
        set { state.withLock { $0.caFile = newValue } }
    }

    /// A CA file that cannot be used: `kind` names it for a localised message.
    public struct Problem: Error, CustomStringConvertible {
        public enum Kind: String, Sendable { case unreadable, empty }
        public let kind: Kind
        public let path: String
        public var description: String {
            kind == .empty ? "\(path): holds no PEM certificate" : "\(path): not a readable PEM certificate file"
        }
    }

    /// The absolute path of a CA file that holds at least one PEM
    /// certificate; a clear error for a missing or unreadable one.
    public static func validated(_ path: String) throws -> String {
        let absolute = URL(fileURLWithPath: (path as NSString).expandingTildeInPath).standardizedFileURL.path
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(absolute)
        } catch {
            throw Problem(kind: .unreadable, path: absolute)
        }
        guard !certificates.isEmpty else { throw Problem(kind: .empty, path: absolute) }
        return absolute
    }

    /// A client TLS configuration trusting `caFile` too; nil: the defaults.
    static func configuration(caFile: String?) -> TLSConfiguration? {
        guard let caFile else { return nil }
        var config = TLSConfiguration.makeClientConfiguration()
        config.additionalTrustRoots = [.file(caFile)]
        return config
    }

    /// One HTTP client per CA file, configured like `APIClient.sharedHTTP`.
    static func httpClient(caFile: String?) -> HTTPClient {
        guard let caFile else { return APIClient.sharedHTTP }
        return state.withLock { s in
            if let client = s.clients[caFile] { return client }
            var config = APIClient.httpConfiguration
            config.tlsConfiguration = configuration(caFile: caFile)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: config)
            s.clients[caFile] = client
            return client
        }
    }

    /// A failed TLS handshake in plain words, or nil when `error` is not one.
    static func describe(_ error: any Error) -> String? {
        let text = String(reflecting: error)
        guard error is NIOSSLError || error is BoringSSLError || text.contains("NIOSSL") || text.contains("BoringSSL") else {
            return nil
        }
        let lower = text.lowercased()
        if lower.contains("certificate_verify_failed") || lower.contains("certificate verify failed")
            || lower.contains("unabletovalidatecertificate") {
            return "TLS: the server's certificate is not trusted; for a server with its own CA use --ca-file CA.pem"
        }
        if lower.contains("hostname") {
            return "TLS: the server's certificate is not for this host name"
        }
        return "TLS handshake failed (\(text.prefix(100)))"
    }
}

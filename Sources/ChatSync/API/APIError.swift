import ChatCore
import Foundation

/// Why a call to the server failed, each case distinguishable by callers.
public enum APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with PROTOCOL.md's error body.
    case server(status: Int, code: APIErrorCode?, rawCode: String, message: String, retryAfter: Int?)
    /// No connection could be made (refused, no route, DNS, TLS handshake):
    /// the request never left, so the server did not see it.
    case cannotConnect(String)
    /// No answer after the request may have gone out (reset, closed):
    /// whether the server applied it is unknown.
    case unreachable(String)
    /// No answer in time; the server may or may not have applied it.
    case timeout
    /// The answer was not what PROTOCOL.md says.
    case badResponse(String)

    public var code: APIErrorCode? {
        if case .server(_, let code, _, _, _) = self { return code }
        return nil
    }

    /// A retry with the same request cannot succeed.
    public var isPermanent: Bool {
        switch self {
        case .server(let status, let code, _, _, _):
            if code == .rateLimited || code == .unauthorized { return false }
            return (400..<500).contains(status)
        case .badResponse: return true
        case .cannotConnect, .unreachable, .timeout: return false
        }
    }

    public var isBadResponse: Bool {
        if case .badResponse = self { return true }
        return false
    }

    /// The server certainly did not apply the request: it never reached it.
    public var neverReachedServer: Bool {
        if case .cannotConnect = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .server(let status, _, let raw, let message, _): "\(message) (\(raw), HTTP \(status))"
        case .cannotConnect(let why), .unreachable(let why): "cannot reach the server (\(why))"
        case .timeout: "the server did not answer in time"
        case .badResponse(let why): "unexpected answer from the server: \(why)"
        }
    }
}

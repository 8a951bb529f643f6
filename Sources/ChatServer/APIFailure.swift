import ChatCore
import Foundation
import HTTPTypes
import Hummingbird

/// A request the server refuses, with PROTOCOL.md's code and a message
/// that says what was wrong.
public struct APIFailure: Error, Sendable, CustomStringConvertible {
    public var code: APIErrorCode
    public var message: String
    public var retryAfter: Int?
    /// v4, `devices_changed`: the current devices per imUid.
    public var devices: [String: [String]]?

    public init(_ code: APIErrorCode, _ message: String, retryAfter: Int? = nil) {
        self.code = code; self.message = message; self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }

    package static func invalid(_ m: String) -> APIFailure { .init(.invalidRequest, m) }
    static func forbidden(_ m: String) -> APIFailure { .init(.forbidden, m) }
    static func notFound(_ m: String) -> APIFailure { .init(.notFound, m) }
    static let unauthorized = APIFailure(.unauthorized, "missing or invalid token")
    static let storageFull = APIFailure(.storageFull, "the server's storage is full; nothing was stored, try again later",
                                        retryAfter: 30)

    var response: Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let body = (try? JSONEncoder().encode(APIErrorBody(code: code, message: message, devices: devices))) ?? Data()
        return Response(status: .init(code: code.httpStatus), headers: headers,
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Maps Hummingbird's own errors (unknown route, wrong method, body too
    /// large) onto the protocol's table.
    static func from(_ error: any Error) -> APIFailure {
        if let f = error as? APIFailure { return f }
        if let h = error as? HTTPError {
            switch h.status.code {
            case 404, 405: return .init(.notFound, "no such endpoint")
            case 413: return .init(.tooLarge, "request body too large")
            case 401: return .unauthorized
            case 403: return .init(.forbidden, h.body ?? "forbidden")
            default: return .init(.invalidRequest, h.body ?? "bad request")
            }
        }
        if error is DecodingError { return .invalid(describe(decoding: error)) }
        if isStorageFull(error) { return .storageFull }
        return .init(.invalidRequest, "request could not be processed")
    }

    /// The database's "disk is full" (`StorageError`), or a file write that
    /// hit ENOSPC / EDQUOT.
    static func isStorageFull(_ error: any Error) -> Bool {
        if let storage = error as? any StorageError { return storage.isStorageFull }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return ns.code == Int(ENOSPC) || ns.code == Int(EDQUOT) }
        if ns.domain == NSCocoaErrorDomain, ns.code == NSFileWriteOutOfSpaceError { return true }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError { return isStorageFull(underlying) }
        return false
    }

    static func describe(decoding error: any Error) -> String {
        guard let e = error as? DecodingError else { return "malformed JSON" }
        func path(_ c: [any CodingKey]) -> String { c.map(\.stringValue).joined(separator: ".") }
        switch e {
        case .keyNotFound(let k, let ctx): return "missing field \(path(ctx.codingPath + [k]))"
        case .typeMismatch(_, let ctx): return "field \(path(ctx.codingPath)) has the wrong type"
        case .valueNotFound(_, let ctx): return "field \(path(ctx.codingPath)) must not be null"
        case .dataCorrupted(let ctx):
            return ctx.codingPath.isEmpty ? "malformed JSON" : "field \(path(ctx.codingPath)) is invalid"
        @unknown default: return "malformed JSON"
        }
    }
}

/// Why the server cannot start here (not a request's fault).
public struct ServerSetupError: Error, Sendable, CustomStringConvertible {
    public let description: String
    package init(description: String) { self.description = description }
}

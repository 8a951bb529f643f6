import Hummingbird

/// Resolves the bearer token; 401 with the protocol body otherwise.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext
    let auth: AuthService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = Self.token(from: request.headers[.authorization]), let uid = try auth.authenticate(token: token) else {
            throw APIFailure.unauthorized
        }
        try auth.checkRate(uid: uid)
        var ctx = context
        ctx.uid = uid
        ctx.token = token
        return try await next(request, ctx)
    }

    /// The token of `Bearer <token>` (scheme in any case, blanks around the
    /// token ignored). Byte-level: it runs on every request.
    static func token(from header: String?) -> String? {
        guard let header else { return nil }
        let bytes = header.utf8
        let scheme = "bearer ".utf8
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ a, b in a == b || (a >= 0x41 && a <= 0x5A && a | 0x20 == b) }) else { return nil }
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let rest = bytes.dropFirst(scheme.count)
        guard let first = rest.firstIndex(where: { !blank($0) }), let last = rest.lastIndex(where: { !blank($0) }) else { return nil }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

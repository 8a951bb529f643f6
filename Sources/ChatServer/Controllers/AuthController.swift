import ChatCore
import Hummingbird

/// `/auth/*`: accounts, their tokens and the devices holding them.
struct AuthController {
    let auth: AuthService
    let read: RequestReader

    /// Reachable without a token.
    var openRoutes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("register") { req, _ in
            json(try auth.register(try await read.decode(RegisterRequest.self, req), userAgent: req.headers[.userAgent]),
                 status: .created)
        }
        routes.post("login") { req, _ in
            json(try auth.login(try await read.decode(LoginRequest.self, req), userAgent: req.headers[.userAgent]))
        }
        return routes
    }

    /// Behind the token check.
    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("logout") { _, ctx in
            try auth.logout(token: ctx.token)
            return Response(status: .noContent)
        }
        routes.get("sessions") { _, ctx in json(try auth.sessions(caller: ctx.uid, token: ctx.token)) }
        routes.post("sessions/revoke") { req, ctx -> Response in
            try auth.revokeSession(caller: ctx.uid, sessionId: try await read.decode(RevokeSessionRequest.self, req).sessionId)
            return Response(status: .noContent)
        }
        return routes
    }
}

import ChatCore
import HTTPTypes
import Hummingbird

/// `/auth/*`: accounts, their tokens and the devices holding them.
struct AuthController {
    let auth: AuthService
    let read: RequestReader
    let addresses: ClientAddress

    /// Reachable without a token; limited per client address.
    var openRoutes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("register") { req, ctx in
            json(try await auth.register(try await read.decode(RegisterRequest.self, req), userAgent: req.headers[.userAgent],
                                         address: address(req, ctx)),
                 status: .created)
        }
        routes.post("login") { req, ctx in
            json(try await auth.login(try await read.decode(LoginRequest.self, req), userAgent: req.headers[.userAgent],
                                      address: address(req, ctx)))
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
        routes.post("password") { req, ctx -> Response in
            try await auth.changePassword(caller: ctx.uid, token: ctx.token, try await read.decode(ChangePasswordRequest.self, req),
                                          address: address(req, ctx))
            return Response(status: .noContent)
        }
        routes.get("sessions") { _, ctx in json(try auth.sessions(caller: ctx.uid, token: ctx.token)) }
        routes.post("sessions/revoke") { req, ctx -> Response in
            try auth.revokeSession(caller: ctx.uid, sessionId: try await read.decode(RevokeSessionRequest.self, req).sessionId)
            return Response(status: .noContent)
        }
        return routes
    }

    private func address(_ req: Request, _ ctx: ChatRequestContext) -> String {
        addresses.resolve(peer: ctx.peer, forwardedFor: req.headers[values: .xForwardedFor].joined(separator: ","))
    }
}

extension HTTPField.Name {
    static var xForwardedFor: Self { .init("X-Forwarded-For")! }
}

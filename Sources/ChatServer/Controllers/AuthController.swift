import ChatCore
import Hummingbird

/// `/auth/*`: accounts and their tokens.
struct AuthController {
    let auth: AuthService
    let read: RequestReader

    /// Reachable without a token.
    var openRoutes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("register") { req, _ in
            json(try auth.register(try await read.decode(RegisterRequest.self, req)), status: .created)
        }
        routes.post("login") { req, _ in
            json(try auth.login(try await read.decode(LoginRequest.self, req)))
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
        return routes
    }
}

import ChatCore
import Hummingbird

/// `/auth/*` and `/user/*`: accounts, tokens, profiles, search.
struct AccountController {
    let service: ChatService
    let read: RequestReader

    /// Reachable without a token.
    var openRoutes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.get("/healthz") { _, _ in json(HealthResponse()) }
        routes.post("/auth/register") { req, _ in
            json(try service.register(try await read.decode(RegisterRequest.self, req)), status: .created)
        }
        routes.post("/auth/login") { req, _ in
            json(try service.login(try await read.decode(LoginRequest.self, req)))
        }
        return routes
    }

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("/auth/logout") { _, ctx in
            try service.logout(token: ctx.token)
            return Response(status: .noContent)
        }
        routes.get("/user/me") { _, ctx in json(try service.user(uid: ctx.uid)) }
        routes.get("/user/search") { req, ctx in
            json(try service.searchUsers(query: req.uri.queryParameters.get("q") ?? "", caller: ctx.uid))
        }
        routes.post("/user/profile/update") { req, ctx in
            json(try service.rename(caller: ctx.uid, username: try await read.decode(UpdateProfileRequest.self, req).username))
        }
        routes.post("/user/profile/openim-batch") { req, _ in
            json(try service.profiles(try await read.decode(ProfileBatchRequest.self, req).userIds))
        }
        return routes
    }
}

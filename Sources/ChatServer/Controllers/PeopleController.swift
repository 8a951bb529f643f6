import ChatCore
import Hummingbird

/// `/friend/*` and `/block/*` (PROTOCOL.md v3 "People").
struct PeopleController {
    let people: PeopleService
    let read: RequestReader

    /// Mounted at `/friend`.
    var friendRoutes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("request") { req, ctx in
            let r = try await read.decode(FriendRequestBody.self, req)
            let (request, created) = try people.request(caller: ctx.uid, userId: r.userId, message: r.message)
            return json(request, status: created ? .created : .ok)
        }
        routes.get("requests") { _, ctx in json(try people.requests(caller: ctx.uid)) }
        routes.post("respond") { req, ctx in
            let r = try await read.decode(FriendRespondRequest.self, req)
            return json(try people.respond(caller: ctx.uid, requestId: r.requestId, accept: r.accept))
        }
        routes.get("list") { _, ctx in json(try people.friends(caller: ctx.uid)) }
        routes.post("remove") { req, ctx -> Response in
            try people.remove(caller: ctx.uid, userId: try await read.decode(UserIdRequest.self, req).userId)
            return Response(status: .noContent)
        }
        routes.post("remark") { req, ctx in
            let r = try await read.decode(RemarkRequest.self, req)
            return json(try people.remark(caller: ctx.uid, userId: r.userId, remark: r.remark))
        }
        return routes
    }

    /// Mounted at `/block`.
    var blockRoutes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("add") { req, ctx -> Response in
            try people.block(caller: ctx.uid, userId: try await read.decode(UserIdRequest.self, req).userId)
            return Response(status: .noContent)
        }
        routes.post("remove") { req, ctx -> Response in
            try people.unblock(caller: ctx.uid, userId: try await read.decode(UserIdRequest.self, req).userId)
            return Response(status: .noContent)
        }
        routes.get("list") { _, ctx in json(try people.blocked(caller: ctx.uid)) }
        return routes
    }
}

import ChatCore
import Hummingbird

/// `/favorite/*` (PROTOCOL.md v3): keep, list and remove favourites.
struct FavoriteController {
    let messages: MessageService
    let read: RequestReader

    /// Mounted at `/favorite`.
    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("add") { req, ctx in
            let r = try await read.decode(FavoriteAddRequest.self, req)
            return json(try messages.addFavorite(caller: ctx.uid, conversationId: r.conversationId, clientMsgID: r.clientMsgId),
                        status: .created)
        }
        routes.get("list") { req, ctx in
            json(try messages.favorites(caller: ctx.uid, before: try read.intParam(req, "before"),
                                        limit: try read.intParam(req, "limit") ?? 40))
        }
        routes.post("remove") { req, ctx -> Response in
            let r = try await read.decode(FavoriteRemoveRequest.self, req)
            try messages.removeFavorite(caller: ctx.uid, favoriteId: r.favoriteId)
            return Response(status: .noContent)
        }
        return routes
    }
}

import ChatCore
import Hummingbird

/// `/chat/conversation*`: the list, starting, pinning, reading, deleting, clearing.
struct ConversationController {
    let service: ChatService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.get("/chat/conversations") { _, ctx in json(try service.conversations(caller: ctx.uid)) }
        routes.post("/chat/conversation/start") { req, ctx in
            json(try service.startConversation(caller: ctx.uid,
                                               userId: try await read.decode(StartConversationRequest.self, req).userId))
        }
        routes.post("/chat/conversation/pin") { req, ctx in
            let r = try await read.decode(PinRequest.self, req)
            return json(try service.pin(caller: ctx.uid, conversationId: r.conversationId, isPinned: r.isPinned))
        }
        routes.post("/chat/conversation/read") { req, ctx in
            let r = try await read.decode(ReadRequest.self, req)
            return json(try service.markRead(caller: ctx.uid, conversationId: r.conversationId, seq: r.seq))
        }
        routes.post("/chat/conversation/delete") { req, ctx in
            let id = try await read.decode(ConversationIDRequest.self, req).conversationId
            try service.clear(caller: ctx.uid, conversationId: id, hide: true)
            return Response(status: .noContent)
        }
        routes.post("/chat/conversation/clear") { req, ctx in
            let id = try await read.decode(ConversationIDRequest.self, req).conversationId
            try service.clear(caller: ctx.uid, conversationId: id, hide: false)
            return Response(status: .noContent)
        }
        return routes
    }
}

import ChatCore
import Hummingbird

/// `/chat/message/*`, `/chat/messages` and `/chat/sync`: sending, revoking,
/// reacting, editing, history pages and the sync log.
struct MessageController {
    let messages: MessageService
    let syncLog: SyncLogService
    let read: RequestReader

    /// Mounted at `/chat`.
    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("message/send") { req, ctx in
            // A secret message may be up to 1 MiB; any other is held to 64 KiB once decoded.
            let request = try await read.decodeSend(req)
            return json(bytes: try await messages.sendBatched(caller: ctx.uid, token: ctx.token, request: request).jsonBytes)
        }
        routes.post("message/revoke") { req, ctx in
            let r = try await read.decode(RevokeRequest.self, req)
            return json(SeqResponse(seq: try messages.revoke(caller: ctx.uid, conversationId: r.conversationId,
                                                             clientMsgID: r.clientMsgId)))
        }
        routes.post("message/react") { req, ctx in
            let r = try await read.decode(ReactRequest.self, req)
            return json(ReactResponse(reactions: try messages.react(caller: ctx.uid, conversationId: r.conversationId,
                                                                    clientMsgID: r.clientMsgId, emoji: r.emoji, on: r.on)))
        }
        routes.post("message/edit") { req, ctx in
            let r = try await read.decode(EditRequest.self, req)
            return json(try messages.edit(caller: ctx.uid, conversationId: r.conversationId, clientMsgID: r.clientMsgId,
                                          content: r.content))
        }
        routes.post("message/delete") { req, ctx -> Response in
            let r = try await read.decode(DeleteMessagesRequest.self, req)
            try messages.deleteForMe(caller: ctx.uid, conversationId: r.conversationId, clientMsgIDs: r.clientMsgIds)
            return Response(status: .noContent)
        }
        routes.get("messages") { req, ctx in
            let q = req.uri.queryParameters
            guard let id = q.get("conversation_id") else { throw APIFailure.invalid("conversation_id is required") }
            let before = try read.intParam(req, "before_seq"), after = try read.intParam(req, "after_seq")
            if before != nil && after != nil { throw APIFailure.invalid("give before_seq or after_seq, not both") }
            return json(try messages.history(caller: ctx.uid, conversationId: id, beforeSeq: before, afterSeq: after,
                                             limit: try read.intParam(req, "limit") ?? 40))
        }
        routes.get("sync") { req, ctx in
            json(bytes: try syncLog.page(caller: ctx.uid, since: try read.intParam(req, "since") ?? 0,
                                         limit: try read.intParam(req, "limit") ?? 500))
        }
        // Reached only when the WebSocket upgrade did not happen.
        routes.get("ws") { _, _ -> Response in
            throw APIFailure.invalid("this endpoint needs a WebSocket upgrade")
        }
        return routes
    }
}

import ChatCore
import Hummingbird

/// `/chat/conversation*`: the list, starting, pinning, muting, reading, deleting, clearing.
struct ConversationController {
    let conversations: ConversationService
    let receipts: ReceiptService
    let read: RequestReader

    /// Mounted at `/chat`.
    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.get("conversations") { _, ctx in json(try conversations.list(caller: ctx.uid)) }
        routes.post("conversation/start") { req, ctx in
            json(try conversations.start(caller: ctx.uid, userId: try await read.decode(StartConversationRequest.self, req).userId))
        }
        routes.post("conversation/pin") { req, ctx in
            let r = try await read.decode(PinRequest.self, req)
            return json(try conversations.pin(caller: ctx.uid, conversationId: r.conversationId, isPinned: r.isPinned))
        }
        routes.post("conversation/mute") { req, ctx in
            let r = try await read.decode(MuteRequest.self, req)
            return json(try conversations.mute(caller: ctx.uid, conversationId: r.conversationId, isMuted: r.isMuted))
        }
        routes.post("conversation/read") { req, ctx in
            let r = try await read.decode(ReadRequest.self, req)
            return json(try receipts.markRead(caller: ctx.uid, conversationId: r.conversationId, seq: r.seq))
        }
        routes.post("typing") { req, ctx in
            try receipts.typing(caller: ctx.uid, conversationId: try await read.decode(TypingRequest.self, req).conversationId)
            return Response(status: .noContent)
        }
        routes.get("message/read-counts") { req, ctx in
            let q = req.uri.queryParameters
            guard let id = q.get("conversation_id") else { throw APIFailure.invalid("conversation_id is required") }
            guard let raw = q.get("seqs") else { throw APIFailure.invalid("seqs is required") }
            let seqs = try raw.split(separator: ",", omittingEmptySubsequences: false).map { part -> Int in
                guard let seq = Int(part), seq > 0 else { throw APIFailure.invalid("seqs must be positive integers separated by commas") }
                return seq
            }
            return json(try receipts.readCounts(caller: ctx.uid, conversationId: String(id), seqs: seqs))
        }
        routes.get("message/readers") { req, ctx in
            guard let id = req.uri.queryParameters.get("conversation_id") else {
                throw APIFailure.invalid("conversation_id is required")
            }
            guard let seq = try read.intParam(req, "seq") else { throw APIFailure.invalid("seq is required") }
            return json(try receipts.readers(caller: ctx.uid, conversationId: String(id), seq: seq))
        }
        routes.post("conversation/delete") { req, ctx in
            let id = try await read.decode(ConversationIDRequest.self, req).conversationId
            try conversations.clear(caller: ctx.uid, conversationId: id, hide: true)
            return Response(status: .noContent)
        }
        routes.post("conversation/clear") { req, ctx in
            let id = try await read.decode(ConversationIDRequest.self, req).conversationId
            try conversations.clear(caller: ctx.uid, conversationId: id, hide: false)
            return Response(status: .noContent)
        }
        return routes
    }
}

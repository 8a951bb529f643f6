import ChatCore
import Hummingbird

/// `/signal/*`: signals, replies to them, the inbox and opening a chat from one.
struct SignalController {
    let service: ChatService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("/signal/create") { req, ctx in
            let content = try await read.decode(SignalCreateRequest.self, req).content
            return json(SignalCreateResponse(signalId: try service.createSignal(caller: ctx.uid, content: content)), status: .created)
        }
        routes.post("/signal/reply") { req, ctx in
            let r = try await read.decode(SignalReplyRequest.self, req)
            return json(SignalReplyResponse(receiveId: try service.replySignal(caller: ctx.uid, signalId: r.signalId, content: r.content)),
                        status: .created)
        }
        routes.get("/signal/inbox") { _, ctx in json(try service.inbox(caller: ctx.uid)) }
        routes.post("/signal/open-im") { req, ctx in
            try service.openIM(caller: ctx.uid, receiveId: try await read.decode(OpenIMRequest.self, req).receiveId)
            return Response(status: .noContent)
        }
        return routes
    }
}

import ChatCore
import Hummingbird

/// `/signal/*`: signals, the feed, replies to them, the inbox and opening a chat from one.
struct SignalController {
    let signals: SignalService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("create") { req, ctx in
            let content = try await read.decode(SignalCreateRequest.self, req).content
            return json(SignalCreateResponse(signalId: try signals.create(caller: ctx.uid, content: content)), status: .created)
        }
        routes.post("reply") { req, ctx in
            let r = try await read.decode(SignalReplyRequest.self, req)
            return json(SignalReplyResponse(receiveId: try signals.reply(caller: ctx.uid, signalId: r.signalId, content: r.content)),
                        status: .created)
        }
        routes.get("inbox") { _, ctx in json(try signals.inbox(caller: ctx.uid)) }
        routes.get("feed") { req, ctx in
            json(try signals.feed(caller: ctx.uid, before: try read.intParam(req, "before"),
                                  limit: try read.intParam(req, "limit") ?? 20))
        }
        routes.get("mine") { _, ctx in json(try signals.mine(caller: ctx.uid)) }
        routes.post("delete") { req, ctx in
            try signals.delete(caller: ctx.uid, signalId: try await read.decode(SignalIdRequest.self, req).signalId)
            return Response(status: .noContent)
        }
        routes.post("hide") { req, ctx in
            try signals.hide(caller: ctx.uid, signalId: try await read.decode(SignalIdRequest.self, req).signalId)
            return Response(status: .noContent)
        }
        routes.post("report") { req, ctx in
            let r = try await read.decode(SignalReportRequest.self, req)
            try signals.report(caller: ctx.uid, signalId: r.signalId, reason: r.reason)
            return Response(status: .noContent)
        }
        routes.post("open-im") { req, ctx in
            try signals.openIM(caller: ctx.uid, receiveId: try await read.decode(OpenIMRequest.self, req).receiveId)
            return Response(status: .noContent)
        }
        return routes
    }
}

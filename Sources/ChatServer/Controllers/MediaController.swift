import ChatCore
import Hummingbird

/// `/media/upload` and `/media/sign` (objects are served by the signed-URL
/// route beside the router).
struct MediaController {
    let service: ChatService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("/media/upload") { req, ctx in
            guard let kind = req.uri.queryParameters.get("type") else { throw APIFailure.invalid("type is required") }
            let declared = req.headers[.contentType] ?? ""
            let bytes = try await read.collect(req, limit: read.config.maxMediaBytes)
            return json(try service.upload(caller: ctx.uid, kind: kind, declaredType: declared, bytes: bytes), status: .created)
        }
        routes.post("/media/sign") { req, ctx in
            json(try service.sign(caller: ctx.uid, keys: try await read.decode(SignRequest.self, req).objectKeys,
                                  baseURL: read.baseURL(req)))
        }
        return routes
    }
}

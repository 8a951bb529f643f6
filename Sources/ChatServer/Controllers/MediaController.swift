import ChatCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/media/upload` and `/media/sign`, and the signed objects themselves
/// (`/media/object/*`, served by `FrontMiddleware` before any routing: the
/// signature is their key, not a token).
struct MediaController {
    static let objectPrefix = "/media/object/"
    let media: MediaService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("upload") { req, ctx in
            guard let kind = req.uri.queryParameters.get("type") else { throw APIFailure.invalid("type is required") }
            let declared = req.headers[.contentType] ?? ""
            let bytes = try await read.collect(req, limit: read.config.maxMediaBytes)
            return json(try media.upload(caller: ctx.uid, kind: kind, declaredType: declared, bytes: bytes), status: .created)
        }
        routes.post("sign") { req, ctx in
            json(try media.sign(caller: ctx.uid, keys: try await read.decode(SignRequest.self, req).objectKeys,
                                baseURL: read.baseURL(req)))
        }
        return routes
    }

    /// `GET`/`HEAD /media/object/<key>?exp=&sig=`.
    func object(_ request: Request) throws -> Response {
        guard request.method == .get || request.method == .head else { throw APIFailure.notFound("no such endpoint") }
        let raw = String(request.uri.path.dropFirst(Self.objectPrefix.count))
        let key = raw.removingPercentEncoding ?? raw
        let q = request.uri.queryParameters
        let (data, type) = try media.fetchObject(key: key, exp: q.get("exp"), sig: q.get("sig"))
        var headers: HTTPFields = [.contentType: type, .cacheControl: "private, max-age=3600"]
        headers[.contentLength] = String(data.count)
        if MediaStore.isFileKey(key) {
            headers[.contentDisposition] = "attachment"
            headers[.init("X-Content-Type-Options")!] = "nosniff"
        }
        return Response(status: .ok, headers: headers,
                        body: request.method == .head ? .init() : .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

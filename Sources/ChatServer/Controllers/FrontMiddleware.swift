import ChatCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Outermost middleware: one log line per request, errors in PROTOCOL.md's
/// body, and signed media GETs (whose keys are checked before any routing).
struct FrontMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext
    let media: MediaController
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            if request.uri.path.hasPrefix(MediaController.objectPrefix) {
                response = try media.object(request)
            } else {
                response = try await next(request, context)
            }
        } catch {
            if let f = error as? APIFailure
                ?? (error is HTTPError || error is DecodingError ? APIFailure.from(error) : nil)
                ?? (APIFailure.isStorageFull(error) ? APIFailure.storageFull : nil) {
                if f.code == .storageFull { logger.error("storage full on \(request.method) \(request.uri.path): \(error)") }
                response = f.response
            } else {
                logger.error("internal error on \(request.method) \(request.uri.path): \(error)")
                let body = (try? JSONEncoder().encode(APIErrorBody(rawCode: "internal", message: "the server failed; nothing was lost, try again"))) ?? Data()
                response = Response(status: .internalServerError, headers: [.contentType: "application/json; charset=utf-8"],
                                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        let took = (ContinuousClock.now - start).components
        let ms = took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(ms)ms")
        return response
    }
}

import ChatCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Every endpoint of PROTOCOL.md.
struct Routes {
    typealias Context = ChatRequestContext
    let service: ChatService
    let config: ServerConfig

    func register(on router: Router<Context>) {
        router.get("/healthz") { _, _ in json(HealthResponse()) }
        router.post("/auth/register") { req, _ in
            let body = try await decode(RegisterRequest.self, req)
            return json(try service.register(body), status: .created)
        }
        router.post("/auth/login") { req, _ in
            json(try service.login(try await decode(LoginRequest.self, req)))
        }

        let auth = router.group().add(middleware: AuthMiddleware(service: service))
        auth.post("/auth/logout") { _, ctx in
            try service.logout(token: ctx.token)
            return Response(status: .noContent)
        }
        auth.get("/user/me") { _, ctx in json(try service.user(uid: ctx.uid)) }
        auth.get("/user/search") { req, ctx in
            json(try service.searchUsers(query: req.uri.queryParameters.get("q") ?? "", caller: ctx.uid))
        }
        auth.post("/user/profile/update") { req, ctx in
            json(try service.rename(caller: ctx.uid, username: try await decode(UpdateProfileRequest.self, req).username))
        }
        auth.post("/user/profile/openim-batch") { req, _ in
            json(try service.profiles(try await decode(ProfileBatchRequest.self, req).userIds))
        }

        auth.post("/chat/message/send") { req, ctx in
            json(bytes: try await service.sendBatched(caller: ctx.uid, request: try await decode(SendMessageRequest.self, req)).jsonBytes)
        }
        auth.post("/chat/message/revoke") { req, ctx in
            let r = try await decode(RevokeRequest.self, req)
            return json(SeqResponse(seq: try service.revoke(caller: ctx.uid, conversationId: r.conversationId,
                                                            clientMsgID: r.clientMsgId)))
        }
        auth.get("/chat/messages") { req, ctx in
            let q = req.uri.queryParameters
            guard let id = q.get("conversation_id") else { throw APIFailure.invalid("conversation_id is required") }
            let before = try intParam(req, "before_seq"), after = try intParam(req, "after_seq")
            if before != nil && after != nil { throw APIFailure.invalid("give before_seq or after_seq, not both") }
            return json(try service.history(caller: ctx.uid, conversationId: id, beforeSeq: before, afterSeq: after,
                                             limit: try intParam(req, "limit") ?? 40))
        }

        auth.get("/chat/conversations") { _, ctx in json(try service.conversations(caller: ctx.uid)) }
        auth.post("/chat/conversation/start") { req, ctx in
            json(try service.startConversation(caller: ctx.uid, userId: try await decode(StartConversationRequest.self, req).userId))
        }
        auth.post("/chat/conversation/pin") { req, ctx in
            let r = try await decode(PinRequest.self, req)
            return json(try service.pin(caller: ctx.uid, conversationId: r.conversationId, isPinned: r.isPinned))
        }
        auth.post("/chat/conversation/read") { req, ctx in
            let r = try await decode(ReadRequest.self, req)
            return json(try service.markRead(caller: ctx.uid, conversationId: r.conversationId, seq: r.seq))
        }
        auth.post("/chat/conversation/delete") { req, ctx in
            try service.clear(caller: ctx.uid, conversationId: try await decode(ConversationIDRequest.self, req).conversationId, hide: true)
            return Response(status: .noContent)
        }
        auth.post("/chat/conversation/clear") { req, ctx in
            try service.clear(caller: ctx.uid, conversationId: try await decode(ConversationIDRequest.self, req).conversationId, hide: false)
            return Response(status: .noContent)
        }

        auth.get("/chat/sync") { req, ctx in
            json(bytes: try service.syncPage(caller: ctx.uid, since: try intParam(req, "since") ?? 0, limit: try intParam(req, "limit") ?? 500))
        }
        // Reached only when the WebSocket upgrade did not happen.
        auth.get("/chat/ws") { _, _ -> Response in
            throw APIFailure.invalid("this endpoint needs a WebSocket upgrade")
        }

        auth.post("/media/upload") { req, ctx in
            guard let kind = req.uri.queryParameters.get("type") else { throw APIFailure.invalid("type is required") }
            let declared = req.headers[.contentType] ?? ""
            let bytes = try await collect(req, limit: config.maxMediaBytes)
            return json(try service.upload(caller: ctx.uid, kind: kind, declaredType: declared, bytes: bytes), status: .created)
        }
        auth.post("/media/sign") { req, ctx in
            json(try service.sign(caller: ctx.uid, keys: try await decode(SignRequest.self, req).objectKeys,
                                  baseURL: baseURL(req)))
        }

        auth.post("/signal/create") { req, ctx in
            json(SignalCreateResponse(signalId: try service.createSignal(caller: ctx.uid,
                                                                         content: try await decode(SignalCreateRequest.self, req).content)),
                 status: .created)
        }
        auth.post("/signal/reply") { req, ctx in
            let r = try await decode(SignalReplyRequest.self, req)
            return json(SignalReplyResponse(receiveId: try service.replySignal(caller: ctx.uid, signalId: r.signalId, content: r.content)),
                        status: .created)
        }
        auth.get("/signal/inbox") { _, ctx in json(try service.inbox(caller: ctx.uid)) }
        auth.post("/signal/open-im") { req, ctx in
            try service.openIM(caller: ctx.uid, receiveId: try await decode(OpenIMRequest.self, req).receiveId)
            return Response(status: .noContent)
        }
    }

    // MARK: - Helpers

    func collect(_ request: Request, limit: Int) async throws -> Data {
        var buffer = ByteBuffer()
        for try await chunk in request.body {
            guard buffer.readableBytes + chunk.readableBytes <= limit else {
                throw APIFailure(.tooLarge, "body is larger than \(limit) bytes")
            }
            buffer.writeImmutableBuffer(chunk)
        }
        return Data(buffer.readableBytesView)
    }

    func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let data = try await collect(request, limit: config.maxJSONBytes)
        guard !data.isEmpty else { throw APIFailure.invalid("a JSON body is required") }
        guard String(validating: data, as: UTF8.self) != nil else { throw APIFailure.invalid("body is not valid UTF-8") }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw APIFailure.invalid(APIFailure.describe(decoding: error))
        }
    }

    func intParam(_ request: Request, _ name: String) throws -> Int? {
        guard let raw = request.uri.queryParameters.get(name) else { return nil }
        guard let v = Int(raw) else { throw APIFailure.invalid("\(name) must be an integer") }
        return v
    }

    /// The scheme and authority clients reached us on, for signed URLs.
    func baseURL(_ request: Request) -> String {
        if let host = request.head.authority,
           host.count <= 255, host.allSatisfy({ $0.isLetter || $0.isNumber || ".:-[]".contains($0) }), host.isASCII {
            return "http://\(host)"
        }
        return "http://\(config.host):\(config.port)"
    }
}

func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
    json(bytes: Array((try? JSONEncoder().encode(value)) ?? Data("{}".utf8)), status: status)
}

/// An already encoded JSON body.
func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}

extension String {
    var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}

import ChatCore
import Hummingbird

/// `/keys/*`: each device's public keys (PROTOCOL.md v4 "Secret chats").
struct KeyController {
    let keys: KeyService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.put("device") { req, ctx in
            try keys.upload(caller: ctx.uid, token: ctx.token, try await read.decode(DeviceKeysUpload.self, req))
            return Response(status: .noContent)
        }
        routes.get("count") { _, ctx in json(try keys.count(caller: ctx.uid, token: ctx.token)) }
        routes.get("devices") { req, ctx in
            guard let userId = try read.intParam(req, "user_id") else { throw APIFailure.invalid("user_id is required") }
            return json(try keys.devices(caller: ctx.uid, userId: userId))
        }
        routes.post("claim") { req, ctx in
            json(try await keys.claim(caller: ctx.uid, try await read.decode(KeyClaimRequest.self, req)))
        }
        return routes
    }
}

/// `/secret/*`: starting a secret chat, retry and reseal, flash images.
struct SecretController {
    let secrets: SecretService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("start") { req, ctx in
            json(try secrets.start(caller: ctx.uid, userId: try await read.decode(StartConversationRequest.self, req).userId))
        }
        routes.post("retry") { req, ctx in
            try secrets.retry(caller: ctx.uid, token: ctx.token, try await read.decode(SecretMessageRef.self, req))
            return Response(status: .noContent)
        }
        routes.post("reseal") { req, ctx in
            try secrets.reseal(caller: ctx.uid, token: ctx.token,
                               try await read.decode(SecretResealRequest.self, req, limit: SecretWire.maxBodyBytes))
            return Response(status: .noContent)
        }
        routes.post("flash-viewed") { req, ctx in
            try secrets.flashViewed(caller: ctx.uid, try await read.decode(SecretMessageRef.self, req))
            return Response(status: .noContent)
        }
        return routes
    }
}

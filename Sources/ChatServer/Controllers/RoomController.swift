import ChatCore
import Hummingbird

/// `/room/*` (PROTOCOL.md v3 "Rooms").
struct RoomController {
    let rooms: RoomService
    let read: RequestReader

    /// Mounted at `/room`.
    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("create") { req, ctx in
            json(try rooms.create(caller: ctx.uid, try await read.decode(CreateRoomRequest.self, req)), status: .created)
        }
        routes.get("list") { req, _ in
            let query = req.uri.queryParameters.get("q").map { String($0) } ?? ""
            return json(try rooms.list(query: query, limit: try read.intParam(req, "limit") ?? 50))
        }
        routes.get("mine") { _, ctx in json(try rooms.mine(caller: ctx.uid)) }
        routes.get("lookup") { req, _ in
            guard let name = req.uri.queryParameters.get("unique_name"), !name.isEmpty else {
                throw APIFailure.invalid("unique_name is required")
            }
            return json(try rooms.lookup(uniqueName: String(name)))
        }
        routes.post("enter") { req, ctx in
            json(try rooms.enter(caller: ctx.uid, uniqueName: try await read.decode(EnterRoomRequest.self, req).uniqueName))
        }
        routes.post("leave") { req, ctx -> Response in
            try rooms.leave(caller: ctx.uid, roomId: try await read.decode(RoomIdRequest.self, req).roomId)
            return Response(status: .noContent)
        }
        routes.get("present") { req, ctx in
            json(try rooms.present(caller: ctx.uid, roomId: try roomId(req)))
        }
        routes.post("update") { req, ctx in
            json(try rooms.update(caller: ctx.uid, try await read.decode(UpdateRoomRequest.self, req)))
        }
        routes.post("kick") { req, ctx -> Response in
            let r = try await read.decode(RoomKickRequest.self, req)
            try rooms.kick(caller: ctx.uid, roomId: r.roomId, userId: r.userId, ban: r.ban ?? false)
            return Response(status: .noContent)
        }
        routes.post("unban") { req, ctx -> Response in
            let r = try await read.decode(RoomUserRequest.self, req)
            try rooms.unban(caller: ctx.uid, roomId: r.roomId, userId: r.userId)
            return Response(status: .noContent)
        }
        routes.get("bans") { req, ctx in
            json(try rooms.bans(caller: ctx.uid, roomId: try roomId(req)))
        }
        routes.post("drop") { req, ctx -> Response in
            try rooms.drop(caller: ctx.uid, roomId: try await read.decode(RoomIdRequest.self, req).roomId)
            return Response(status: .noContent)
        }
        return routes
    }

    private func roomId(_ req: Request) throws -> Int {
        guard let id = try read.intParam(req, "room_id") else { throw APIFailure.invalid("room_id is required") }
        return id
    }
}

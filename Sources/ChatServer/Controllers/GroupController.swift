import ChatCore
import Hummingbird

/// `/group/*` (PROTOCOL.md "Groups").
struct GroupController {
    let groups: GroupService
    let read: RequestReader

    /// Mounted at `/group`.
    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.post("create") { req, ctx in
            json(try groups.create(caller: ctx.uid, try await read.decode(CreateGroupRequest.self, req)), status: .created)
        }
        routes.get("info") { req, ctx in
            json(try groups.info(caller: ctx.uid, groupId: try groupId(req)))
        }
        routes.get("lookup") { req, _ in
            guard let name = req.uri.queryParameters.get("unique_name"), !name.isEmpty else {
                throw APIFailure.invalid("unique_name is required")
            }
            return json(try groups.lookup(uniqueName: String(name)))
        }
        routes.post("join") { req, ctx in
            json(try groups.join(caller: ctx.uid, uniqueName: try await read.decode(JoinGroupRequest.self, req).uniqueName))
        }
        routes.post("invite") { req, ctx in
            let r = try await read.decode(InviteRequest.self, req)
            return json(try groups.invite(caller: ctx.uid, groupId: r.groupId, userIds: r.userIds))
        }
        routes.post("leave") { req, ctx in
            try groups.leave(caller: ctx.uid, groupId: try await read.decode(GroupIdRequest.self, req).groupId)
            return Response(status: .noContent)
        }
        routes.post("dissolve") { req, ctx in
            try groups.dissolve(caller: ctx.uid, groupId: try await read.decode(GroupIdRequest.self, req).groupId)
            return Response(status: .noContent)
        }
        routes.post("kick") { req, ctx in
            let r = try await read.decode(KickRequest.self, req)
            try groups.kick(caller: ctx.uid, groupId: r.groupId, userId: r.userId)
            return Response(status: .noContent)
        }
        routes.post("update") { req, ctx in
            json(try groups.update(caller: ctx.uid, try await read.decode(UpdateGroupRequest.self, req)))
        }
        routes.get("members") { req, ctx in
            json(try groups.members(caller: ctx.uid, groupId: try groupId(req), after: try read.intParam(req, "after") ?? 0,
                                    limit: try read.intParam(req, "limit") ?? 500))
        }
        return routes
    }

    private func groupId(_ req: Request) throws -> Int {
        guard let id = try read.intParam(req, "group_id") else { throw APIFailure.invalid("group_id is required") }
        return id
    }
}

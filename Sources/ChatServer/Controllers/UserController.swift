import ChatCore
import Hummingbird

/// `/user/*`: the caller's profile and settings, search, profiles in bulk.
struct UserController {
    let users: UserService
    let people: PeopleService
    let read: RequestReader

    var routes: RouteCollection<ChatRequestContext> {
        let routes = RouteCollection(context: ChatRequestContext.self)
        routes.get("me") { _, ctx in json(try users.user(uid: ctx.uid)) }
        routes.get("search") { req, ctx in
            json(try users.search(query: req.uri.queryParameters.get("q") ?? "", caller: ctx.uid))
        }
        routes.post("profile/update") { req, ctx in
            json(try users.updateProfile(caller: ctx.uid, try await read.decode(UpdateProfileRequest.self, req)))
        }
        routes.get("settings") { _, ctx in json(try people.settings(caller: ctx.uid)) }
        routes.post("settings") { req, ctx in
            json(try people.setSettings(caller: ctx.uid, try await read.decode(SettingsChange.self, req)))
        }
        routes.post("profile/openim-batch") { req, _ in
            json(try users.profiles(try await read.decode(ProfileBatchRequest.self, req).userIds))
        }
        return routes
    }
}

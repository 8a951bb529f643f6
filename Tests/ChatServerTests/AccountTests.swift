import ChatCore
import Foundation
import Testing
@testable import ChatServer

@Suite(.serialized) struct AccountTests {
    @Test func registerLoginLogoutAndErrors() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let anon = server.anonymous
        #expect(try await anon.get("/healthz").text.contains("ok"))

        let (api, auth) = try await server.user("alice_1")
        #expect(auth.imUid == "tb_\(auth.uid)")
        #expect(auth.token.count == 64, "256-bit token")
        #expect(try await api.get("/user/me").decode(UserBasicInfo.self).username == "alice_1")

        // Taken account, bad account, short password.
        #expect(try await anon.post("/auth/register", RegisterRequest(account: "alice_1", password: "whatever123")).status == 409)
        #expect(try await anon.post("/auth/register", RegisterRequest(account: "A!", password: "whatever123")).errorCode == "invalid_request")
        #expect(try await anon.post("/auth/register", RegisterRequest(account: "zed", password: "short")).status == 400)

        // Login and wrong password.
        let login = try await anon.post("/auth/login", LoginRequest(account: "alice_1", password: "password-alice_1"))
        #expect(login.status == 200)
        #expect(try await anon.post("/auth/login", LoginRequest(account: "alice_1", password: "wrong-password")).errorCode == "unauthorized")
        #expect(try await anon.post("/auth/login", LoginRequest(account: "nobody", password: "wrong-password")).status == 401)

        // No token, bad token, logged-out token.
        #expect(try await anon.get("/user/me").status == 401)
        #expect(try await API(base: server.base, token: "nope").get("/user/me").errorCode == "unauthorized")
        #expect(try await api.send(.POST, "/auth/logout").status == 204)
        #expect(try await api.get("/user/me").status == 401)
        let second = API(base: server.base, token: try login.decode(AuthResponse.self).token)
        #expect(try await second.get("/user/me").status == 200, "other sessions survive a logout")

        // Passwords and tokens are not stored in the clear (the SQLite file
        // is read whole; PostgreSQL's rows come from the same service code).
        if TestServer.postgresAdminURL == nil {
            let raw = try Data(contentsOf: server.dir.appendingPathComponent("server.sqlite"))
            #expect(raw.range(of: Data("password-alice_1".utf8)) == nil)
            #expect(raw.range(of: Data(auth.token.utf8)) == nil)
        }
    }

    @Test func searchAndProfiles() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (api, me) = try await server.user("searcher")
        let (_, zhang) = try await server.user("zhang_san")
        _ = try await server.user("zhang_wei")
        let found = try await api.get("/user/search?q=zhang").decode([UserBasicInfo].self)
        #expect(found.map(\.username).sorted() == ["zhang_san", "zhang_wei"])
        #expect(try await api.get("/user/search?q=%25").decode([UserBasicInfo].self).isEmpty, "% is not a wildcard")
        let batch = try await api.post("/user/profile/openim-batch", ProfileBatchRequest(userIds: [zhang.uid, 999_999, me.uid]))
        #expect(try batch.decode([UserBasicInfo].self).map(\.uid) == [zhang.uid, me.uid], "unknown ids left out")
    }
}

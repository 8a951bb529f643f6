import ChatCore
import ChatServer
@testable import ChatSync
@testable import ChatStore
import Foundation
import Testing
import TerminalUI
@testable import TongbanTUI

/// Rooms through the whole client against a real in-process server: the
/// runner's requests, the store, the sync engine's pushes.
extension ChatAppScreenTests {
    @Test func aRoomFoundInTheDirectoryIsLivedInAndWhatWasMissedOfflineIsFilled() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let root = tmpDir("alice")
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                               configDirectory: root.appendingPathComponent("k"))
        let alice = try Session(credentials: try await Session.login(server: server.baseURL, account: "alice", password: "tongban-demo",
                                                                      paths: paths), paths: paths)
        let aliceOnline = await alice.comeOnline(), meOnline = await session.comeOnline()
        #expect(aliceOnline && meOnline)
        defer { alice.sync.stop(); session.sync.stop() }
        let room = try await alice.createRoom(CreateRoomRequest(name: "大厅 🏮", uniqueName: "lobby", topic: "随便聊"))
        let app = await app(session)

        // n, Enter on nothing: the directory; Enter enters the room.
        await app.handle(.char("n"))
        await app.handle(.enter)
        #expect(await waitFor(app, "# 大厅 🏮  lobby  1人在"))
        await app.handle(.enter)
        #expect(await waitFor(app, "# 大厅 🏮（2人在）  随便聊"))
        #expect(await waitFor(app, "你 进入房间"), "my own entering reads 你")
        _ = try await alice.say("欢迎 👋", inRoom: room.conversationId)
        #expect(await waitFor(app, "欢迎 👋"), "a push shows in the open room")
        // A message of 1,000 family emoji is one frame of 25 KB: it comes, and the socket stays (and so I stay in the room).
        _ = try await alice.say(String(repeating: "👨‍👩‍👧‍👦", count: 1000) + "完", inRoom: room.conversationId)
        try await waitUntil {
            (try? session.reader.newestPage(conversationId: room.conversationId, limit: 5))?.messages.contains { $0.content.hasSuffix("完") } == true
        }
        #expect(try await alice.roomPresent(room.roomId).count == 2)
        await type(app, "谢谢")
        await app.handle(.enter)
        #expect(await waitFor(app, "谢谢"))

        // The connection drops (offline is left), 60 things are said, it comes back.
        session.sync.stop()
        app.syncUpdate(.connection(.offline("test")))
        try await waitUntil { (try? await alice.roomPresent(room.roomId))?.count == 1 }
        for i in 1...60 { _ = try await alice.say("错过的第\(i)句", inRoom: room.conversationId) }
        session.sync.start()
        #expect(await waitFor(app, "错过的第60句"), "entered again: the newest came with entering")
        try await waitUntil { (try? session.reader.missingRanges(conversationId: room.conversationId))?.isEmpty == true }
        let kept = try session.reader.newestPage(conversationId: room.conversationId, limit: 500).messages
        #expect(kept.filter { $0.content.hasPrefix("错过的第") }.count == 60, "and what came before them was filled from history")
        #expect(try session.store.conversationList(localizer: Localizer(language: .zhHans)).allSatisfy { !$0.id.hasPrefix("sr_") },
                "the room is in no list")

        // d on the room's row, y: left, for the server too.
        await app.handle(.escape)
        await app.handle(.escape)
        await app.handle(.char("g"))
        await app.handle(.char("d"))
        await app.handle(.char("y"))
        #expect(await waitFor(app, "已离开房间"))
        try await waitUntil { (try? await alice.roomPresent(room.roomId))?.count == 1 }
    }
}

/// Polls `condition` every 20 ms for up to 10 s (a server's view settling).
@MainActor
func waitUntil(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("never came true", sourceLocation: sourceLocation)
}

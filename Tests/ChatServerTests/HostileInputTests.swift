import ChatCore
import Foundation
import GRDB
import Testing
@testable import ChatServer

@Suite(.serialized) struct HostileInputTests {
    @Test func pictureSizesOutOfRangeAreRefused() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let png = SampleMedia.png(width: 4, height: 4) { _, _ in (0, 0, 255) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        for (w, h) in [(1e300, 1.0), (-4.0, 4.0), (4.0, 70_000.0)] {
            let r = try await a.sendCustom(conv, ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": w, "h": h])
            #expect(r.status == 400 && r.errorCode == "invalid_request", "w \(w) h \(h): \(r.text)")
        }
        let ok = try await a.sendCustom(conv, ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 4, "h": 4])
        #expect(ok.status == 200, "\(ok.text)")
    }

    @Test func aPeerCannotTakeOverMyClientMsgId() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        #expect(try await a.sendText(conv, "我的消息", id: "shared-id").status == 200)
        let stolen = try await b.sendText(conv, "冒名顶替", id: "shared-id")
        #expect(stolen.status == 409 && stolen.errorCode == "conflict", "\(stolen.text)")
        // My own retry is still the idempotent answer, and my revoke still finds my message.
        #expect(try await a.sendText(conv, "我的消息", id: "shared-id").status == 200)
        let revoke = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "shared-id"))
        #expect(revoke.status == 200, "\(revoke.text)")
        let texts = try await b.history(conv).messages.map(\.content)
        #expect(!texts.contains("冒名顶替"))
    }

    /// Ten failures in any 60 s block the account until the oldest of them
    /// is 60 s old, wherever the minute boundaries fall: five failures just
    /// before a minute turns and five just after still block the eleventh try.
    @Test func passwordGuessingIsCappedPerAccount() async throws {
        let start = 1_800_000_000_000 + 59_000  // one second before a minute turns
        let clock = ManualClock(ms: start)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        _ = try await server.user("guessme")
        func attempt(_ password: String) async throws -> Reply {
            try await server.anonymous.post("/auth/login", LoginRequest(account: "guessme", password: password))
        }
        for i in 0..<ServerLimits().failedLoginsPerAccount {
            if i == ServerLimits().failedLoginsPerAccount / 2 { clock.advance(ms: 2_000) }  // across the minute boundary
            #expect(try await attempt("wrong-\(i)").status == 401)
        }
        let blocked = try await attempt("password-guessme")
        #expect(blocked.status == 429 && blocked.errorCode == "rate_limited", "\(blocked.text)")
        // Blocked until the first failure is 60 s old: 58 s from here.
        #expect(blocked.header("Retry-After") == "58")
        clock.advance(ms: 57_999)
        #expect(try await attempt("password-guessme").status == 429)
        // Other accounts are not affected meanwhile.
        let (_, other) = try await server.user("someoneelse")
        let fine = try await server.anonymous.post("/auth/login", LoginRequest(account: "someoneelse", password: "password-someoneelse"))
        #expect(fine.status == 200 && other.uid > 0, "\(fine.text)")
        // Once the first five failures leave the window, the five after the
        // minute turned still count: five more block again.
        clock.advance(ms: 1)
        for i in 0..<ServerLimits().failedLoginsPerAccount / 2 {
            #expect(try await attempt("wrong-again-\(i)").status == 401)
        }
        let again = try await attempt("password-guessme")
        #expect(again.status == 429 && again.header("Retry-After") == "2", "\(again.text)")
        clock.advance(ms: 2_000)
        #expect(try await attempt("password-guessme").status == 200)
    }

    @Test func aFullDiskIsStorageFull() throws {
        #expect(APIFailure.isStorageFull(DatabaseError(resultCode: .SQLITE_FULL)))
        #expect(!APIFailure.isStorageFull(DatabaseError(resultCode: .SQLITE_BUSY)))
        #expect(APIFailure.isStorageFull(CocoaError(.fileWriteOutOfSpace)))
        #expect(APIFailure.isStorageFull(NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))))
        #expect(APIFailure.storageFull.code.httpStatus == 503)
    }

    @Test func loginThrottleSlidesItsWindow() {
        var t = SlidingWindows(maxTracked: 2)
        func record(_ key: String, _ now: Int) { t.record(key, limit: 3, windowMs: 1_000, now: now) }
        func blocked(_ key: String, _ now: Int) -> Int? { t.blockedFor(key, limit: 3, windowMs: 1_000, now: now) }
        record("a", 0)
        record("a", 900)
        #expect(blocked("a", 950) == nil)
        record("a", 950)
        #expect(blocked("a", 950) == 50)  // until the failure at 0 is 1 s old
        #expect(blocked("a", 1_000) == nil)
        // The failures at 900 and 950 still count: one more blocks until 1,900.
        record("a", 1_000)
        #expect(blocked("a", 1_000) == 900)
        #expect(blocked("b", 1_000) == nil)
        // Keys with no event left in the window are forgotten once too many are tracked.
        record("b", 1_100)
        record("c", 5_000)
        #expect(t.trackedKeys == 1)
        #expect(blocked("a", 5_000) == nil)
    }
}

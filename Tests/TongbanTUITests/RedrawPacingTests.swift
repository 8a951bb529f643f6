import ChatCore
import Testing
@testable import TongbanTUI

/// One pull reaches the app as several updates a few milliseconds apart;
/// they share a frame, while a key is answered at once.
@MainActor @Suite(.serialized) struct RedrawPacingTests {
    @Test(.timeLimit(.minutes(1))) func updatesNoKeyMadeShareOneFrameAndAKeyDrawsAtOnce() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        // Not started: nothing but this test asks for frames.
        let app = ChatApp(session: session, localizer: Localizer(language: .en))
        var gate = AsyncGate()
        app.settle = { [gate] in await gate.wait() }
        let (frames, drawn) = AsyncStream.makeStream(of: String.self)
        app.onRedraw = { [unowned app] in drawn.yield(app.frame(width: 120, height: 40).rowText(39)) }
        var next = frames.makeAsyncIterator()

        app.showStatus("first update")
        app.showStatus("second update")
        for _ in 0..<20 { await Task.yield() }
        app.showStatus("third update")
        await gate.open()
        let shared = try #require(await next.next())
        #expect(shared.contains("third update"), "the one frame shows the last of the updates: \(shared)")

        // Updates waiting to settle do not hold back a key's frame.
        gate = AsyncGate()
        app.settle = { [gate] in await gate.wait() }
        app.showStatus("an update that waits")
        await app.handle(.char("j"))
        let keyFrame = try #require(await next.next())
        #expect(!keyFrame.contains("an update that waits"), "the frame, drawn with the gate still shut, is the key's (its answer cleared the status): \(keyFrame)")
        // The key's frame had that update: once settled, it draws nothing more.
        await gate.open()
        for _ in 0..<20 { await Task.yield() }
        app.showStatus("later")
        let last = try #require(await next.next())
        #expect(last.contains("later"), "no frame between the key's and this one: \(last)")
    }

    /// The start draws its first frame before it begins its networking: a
    /// frame asked for with `redraw()` waited for a task that ran after it.
    @Test(.timeLimit(.minutes(1))) func theFirstFrameIsOnScreenBeforeTheStartGoesOn() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = ChatApp(session: session, localizer: Localizer(language: .en))
        final class Frames { var rows: [String] = [] }
        let frames = Frames()
        app.onRedraw = { [unowned app] in frames.rows.append(app.frame(width: 120, height: 40).rowText(0)) }
        app.loadListFromStore()
        app.drawFirstFrame()
        #expect(frames.rows.count == 1, "drawn before drawFirstFrame returned: \(frames.rows)")
        // A frame asked for right after is drawn as ever.
        app.redraw()
        for _ in 0..<100 where frames.rows.count < 2 { await Task.yield() }
        #expect(frames.rows.count == 2, "\(frames.rows)")
    }
}

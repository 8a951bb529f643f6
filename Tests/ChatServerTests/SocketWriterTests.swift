import ChatCore
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import ChatServer

/// A socket's frames, as its client would read them off the wire.
@Suite struct SocketWriterTests {
    @Test func syncNoticesFoldIntoTheNewestAndFramesKeepTheirOrder() {
        let outbox = SocketOutbox()
        outbox.send(.frame("hello"))
        outbox.sync(7)
        outbox.sync(12)
        outbox.sync(9)
        outbox.send(.frame("presence"))
        #expect(outbox.take() == [.frame("hello"), .frame("presence"), .frame(PushHub.encode(.sync(cursor: 12)))])
        #expect(outbox.take().isEmpty, "nothing twice")
        for n in 0..<(SocketOutbox.maxFrames + 10) { outbox.send(.frame("\(n)")) }
        let kept = outbox.take()
        #expect(kept.count == SocketOutbox.maxFrames && kept.first == .frame("10"), "a stalled socket keeps the newest frames")
    }

    @Test func framesWaitingBeforeTheWriterAndAfterItGoOutInOrder() throws {
        let channel = EmbeddedChannel()
        let outbox = SocketOutbox()
        outbox.send(.frame("hello"))
        try SocketWriter.install(outbox, on: channel)
        #expect(try texts(channel) == ["hello"], "what waited goes out as the writer starts")
        outbox.sync(3)
        outbox.send(.encoded(ByteBuffer(string: "room")))
        #expect(try texts(channel).isEmpty, "written on the loop, not by the caller")
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["room", PushHub.encode(.sync(cursor: 3))])
    }

    @Test func oneFrameToManySocketsOfOneLoopReachesEach() throws {
        let loop = EmbeddedEventLoop()
        let channels = (0..<3).map { _ in EmbeddedChannel(loop: loop) }
        let outboxes = channels.map { _ in SocketOutbox() }
        for (c, o) in zip(channels, outboxes) { try SocketWriter.install(o, on: c) }
        SocketOutbox.deliver(.encoded(ByteBuffer(string: "one")), to: outboxes)
        SocketOutbox.deliver(.encoded(ByteBuffer(string: "two")), to: outboxes)
        loop.run()
        for c in channels { #expect(try texts(c) == ["one", "two"]) }
    }

    @Test func aSocketThatTakesNoMoreGetsTheNewestFramesWhenItIsWritableAgain() throws {
        let channel = EmbeddedChannel()
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        outbox.send(.frame("first"))
        channel.embeddedEventLoop.run()
        channel.isWritable = false
        for n in 0..<(SocketOutbox.maxFrames + 44) { outbox.send(.frame("\(n)")) }
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["first"], "nothing more while the socket is full")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let later = try texts(channel)
        #expect(later.count == SocketOutbox.maxFrames)
        #expect(later.first == "44" && later.last == "\(SocketOutbox.maxFrames + 43)", "the newest, in order")
    }

    @Test func aCloseStopsTheFramesAndReachesTheSessionThenTheEnd() async throws {
        let channel = EmbeddedChannel()
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        outbox.send(.frame("before"))
        outbox.send(.close(code: PushCloseCode.signedOut))
        outbox.send(.frame("after"))
        outbox.finish()
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["before"])
        var codes: [UInt16] = []
        for await code in outbox.closes { codes.append(code) }
        #expect(codes == [PushCloseCode.signedOut], "the close, then the end")
    }

    @Test func anOutboxWithoutAWriterEndsAtOnce() async {
        let outbox = SocketOutbox()
        outbox.finish()
        for await _ in outbox.closes { Issue.record("no close was asked for") }
    }

    private func texts(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.opcode == .text && frame.fin)
            out.append(String(buffer: frame.unmaskedData))
        }
        return out
    }
}

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

    @Test func aStalledSocketGetsTheNewestFramesAndOneSyncWhenItIsWritableAgain() throws {
        let channel = EmbeddedChannel()
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        outbox.send(.frame("first"))
        channel.embeddedEventLoop.run()
        channel.isWritable = false
        let count = SocketOutbox.maxFrames + 44
        for n in 0..<count {
            outbox.send(.frame("\(n)"))
            outbox.sync(n + 1)
            channel.embeddedEventLoop.run()
        }
        #expect(try texts(channel) == ["first"], "nothing more while the socket is full")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let later = try texts(channel)
        #expect(later.count == SocketOutbox.maxFrames + 1)
        #expect(later.first == "44" && later.dropLast().last == "\(count - 1)", "the newest frames, in order")
        #expect(later.last == PushHub.encode(.sync(cursor: count)), "one notice, with the newest cursor")
    }

    @Test func framesLeftWhenTheSocketFilledUpGoFirstWhenItEmpties() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FillsUp(afterWrites: 2))
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        for text in ["a", "b", "c", "d"] { outbox.send(.frame(text)) }
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["a", "b"], "full after two")
        outbox.send(.frame("e"))
        channel.embeddedEventLoop.run()
        channel.isWritable = true
        outbox.send(.frame("f"))
        channel.embeddedEventLoop.run()
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try texts(channel) == ["c", "d", "e", "f"])
    }

    @Test func aCloseStopsTheFramesAndReachesTheSessionThenTheEnd() async throws {
        let channel = EmbeddedChannel()
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        outbox.send(.frame("before"))
        outbox.send(.close(code: PushCloseCode.signedOut))
        outbox.send(.frame("after"))
        outbox.finish()
        outbox.send(.frame("after the end"))
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["before"])
        var codes: [UInt16] = []
        for await code in outbox.closes { codes.append(code) }
        #expect(codes == [PushCloseCode.signedOut], "the close, then the end")
    }

    @Test(.timeLimit(.minutes(1))) func aSignOutReachesTheSessionOfAStalledSocket() async throws {
        let channel = EmbeddedChannel()
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        channel.isWritable = false
        outbox.send(.frame("unread"))
        channel.embeddedEventLoop.run()
        outbox.send(.close(code: PushCloseCode.signedOut))
        outbox.finish()
        channel.embeddedEventLoop.run()
        var codes: [UInt16] = []
        for await code in outbox.closes { codes.append(code) }
        #expect(codes == [PushCloseCode.signedOut], "closed without waiting for the socket to read")
    }

    @Test func aSignOutBeforeTheWriterStartsStillReachesTheSession() async {
        let outbox = SocketOutbox()
        outbox.send(.close(code: PushCloseCode.signedOut))
        outbox.finish()
        var codes: [UInt16] = []
        for await code in outbox.closes { codes.append(code) }
        #expect(codes == [PushCloseCode.signedOut])
    }

    @Test func anOutboxWithoutAWriterEndsAtOnce() async {
        let outbox = SocketOutbox()
        outbox.finish()
        for await _ in outbox.closes { Issue.record("no close was asked for") }
    }

    @Test func behindTheLibrarysChannelFramesGoOutUntilTheClientCloses() throws {
        let channel = EmbeddedChannel()
        let library = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
        let outbox = SocketOutbox()
        try SocketWriter.install(outbox, on: channel)
        outbox.send(.frame("one"))
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["one"])
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer()))
        outbox.send(.frame("two"))
        channel.embeddedEventLoop.run()
        #expect(try texts(channel).isEmpty, "nothing after the client's close")
        withExtendedLifetime(library) {}
    }

    @Test func aClosedSocketsOutboxIsFreed() throws {
        weak var freed: SocketOutbox?
        do {
            let channel = EmbeddedChannel()
            let outbox = SocketOutbox()
            freed = outbox
            try SocketWriter.install(outbox, on: channel)
            outbox.send(.frame("x"))
            channel.embeddedEventLoop.run()
            _ = try channel.finish()
        }
        #expect(freed == nil)
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

/// A socket whose send buffer fills up after a few frames.
private final class FillsUp: ChannelOutboundHandler {
    typealias OutboundIn = WebSocketFrame
    private var left: Int

    init(afterWrites: Int) { left = afterWrites }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        left -= 1
        if left == 0, let channel = context.channel as? EmbeddedChannel { channel.isWritable = false }
        context.write(data, promise: promise)
    }
}

import ChatCore
import NIOCore
import NIOWebSocket
import Synchronization

/// What one socket has yet to send: frames in order, and at most one `sync`
/// notice with the newest cursor. A `sync` says "your log reached N", so a
/// later one says everything an earlier one did: a socket that fell behind
/// (a busy group, a slow network) sends one notice, not one per commit it
/// missed, and catching up costs the server and the client less, not more.
///
/// A WebSocket's frames are written by its `SocketWriter` on the channel's
/// event loop, woken once for any number of frames; until one is attached
/// they wait here, and attaching it writes them.
final class SocketOutbox: Sendable {
    /// A socket's writer, to wake on its event loop.
    struct LoopWriter: Sendable {
        let bound: NIOLoopBound<SocketWriter>
        var loop: any EventLoop { bound.eventLoop }
    }
    private struct State {
        var frames: [PushHub.Outgoing] = []
        var sync: Int?
        var writer: LoopWriter?
        /// The writer was woken and has not taken yet: what is queued
        /// meanwhile goes out with it, without waking it again.
        var woken = false
        var finished = false

        /// The writer, if it needs waking for what was just queued.
        mutating func wake() -> LoopWriter? {
            guard let writer, !woken else { return nil }
            woken = true
            return writer
        }
    }
    private let state = Mutex(State())
    /// The code of a `close(code:)` the writer reached: a WebSocket's close
    /// handshake is its session's to do. Ends once the writer saw `finish`.
    let closes: AsyncStream<UInt16>
    private let closer: AsyncStream<UInt16>.Continuation
    /// Frames a socket that stopped reading may hold before the oldest go.
    static let maxFrames = 256

    init() {
        (closes, closer) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(1))
    }

    /// Queues `frame` (unless `finish` was called); returns the writer to
    /// wake, if it is asleep, so that `wake` can wake each event loop once
    /// for a frame to many sockets.
    func push(_ frame: PushHub.Outgoing) -> LoopWriter? {
        queue { s in
            s.frames.append(frame)
            if s.frames.count > Self.maxFrames { s.frames.removeFirst(s.frames.count - Self.maxFrames) }
        }
    }

    func send(_ frame: PushHub.Outgoing) { push(frame)?.wake() }

    /// Notes that the log reached `cursor`; returns the writer to wake, as `push`.
    func pushSync(_ cursor: Int) -> LoopWriter? {
        queue { s in s.sync = max(s.sync ?? 0, cursor) }
    }

    /// `add`s to what waits, unless finished; the writer to wake, if one
    /// is attached and asleep.
    private func queue(_ add: (inout State) -> Void) -> LoopWriter? {
        state.withLock { s -> LoopWriter? in
            guard !s.finished else { return nil }
            add(&s)
            return s.wake()
        }
    }

    func sync(_ cursor: Int) { pushSync(cursor)?.wake() }

    /// No more frames: the writer ends `closes` after what is queued (with
    /// no writer yet, `closes` says a queued close and ends now).
    func finish() {
        let (writer, close) = state.withLock { s -> (LoopWriter??, UInt16?) in
            s.finished = true
            // Woken even if a wake-up is pending: a writer whose socket is
            // full took nothing when it woke, and waits for writability.
            if let writer = s.writer {
                s.woken = true
                return (.some(writer), nil)
            }
            let close = s.frames.lazy.compactMap { out -> UInt16? in
                if case .close(let code) = out { code } else { nil }
            }.first
            return (.none, close)
        }
        switch writer {
        case .none:
            if let close { closer.yield(close) }
            closer.finish()
        case .some(let asleep): asleep?.wake()
        }
    }

    /// Hands writing to `writer`; it then takes what waits.
    func attach(_ writer: LoopWriter) {
        state.withLock { s in
            s.writer = writer
            s.woken = true
        }
    }

    /// The writer is gone (its channel closed, or it wrote the end): what
    /// comes later waits unwritten, and `closes` ends. Also breaks the
    /// writer's and the outbox's hold on each other.
    func detach() {
        state.withLock { $0.writer = nil }
        closer.finish()
    }

    /// Whether `finish` was called.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Everything to write now: the frames in order, then the newest `sync`.
    func take() -> [PushHub.Outgoing] { takeAll().frames }

    /// As `take`, and whether `finish` was called.
    func takeAll() -> (frames: [PushHub.Outgoing], finished: Bool) {
        state.withLock { s in
            s.woken = false
            var out = s.frames
            s.frames.removeAll(keepingCapacity: true)
            if let cursor = s.sync {
                out.append(.frame(PushHub.encode(.sync(cursor: cursor))))
                s.sync = nil
            }
            return (out, s.finished)
        }
    }

    /// The writer reached a `close(code:)`.
    func closeRequested(_ code: UInt16) { closer.yield(code) }

    /// Wakes each writer; those on one event loop from one task of that loop.
    static func wake(_ writers: [LoopWriter]) {
        guard writers.count > 1 else {
            writers.first?.wake()
            return
        }
        var byLoop: [ObjectIdentifier: [LoopWriter]] = [:]
        for w in writers { byLoop[ObjectIdentifier(w.loop), default: []].append(w) }
        for group in byLoop.values {
            group[0].loop.execute {
                for w in group { w.bound.value.drain() }
            }
        }
    }

    /// `frame` to each of `outboxes`.
    static func deliver(_ frame: PushHub.Outgoing, to outboxes: [SocketOutbox]) {
        wake(outboxes.compactMap { $0.push(frame) })
    }
}

extension SocketOutbox.LoopWriter {
    func wake() {
        let bound = bound
        bound.eventLoop.execute { bound.value.drain() }
    }
}

/// Writes a WebSocket's outbox on its channel's event loop, from the end
/// of its pipeline: a room's message reaches every socket of a loop from
/// one wake-up of that loop (the frame's bytes shared by all), where a
/// writer task per socket cost a task switch and a hop to the loop for
/// each. While a socket takes no more, what comes for it waits in the
/// outbox (which keeps the newest frames and folds `sync` notices) and is
/// written when the socket is writable again. Nothing is written after a
/// close frame: the server's (`close(code:)`, `finish`) or the client's.
final class SocketWriter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let outbox: SocketOutbox
    private var context: ChannelHandlerContext?
    private var waiting = CircularBuffer<WebSocketFrame>()
    /// A close was reached: nothing more is written.
    private var closed = false

    private init(outbox: SocketOutbox) { self.outbox = outbox }

    /// Puts a writer for `outbox` at the end of `channel`'s pipeline.
    static func attach(_ outbox: SocketOutbox, to channel: any Channel) async throws {
        try await channel.eventLoop.submit { try install(outbox, on: channel) }.get()
    }

    /// `attach`, on the channel's event loop.
    static func install(_ outbox: SocketOutbox, on channel: any Channel) throws {
        let writer = SocketWriter(outbox: outbox)
        try channel.pipeline.syncOperations.addHandler(writer)
        outbox.attach(SocketOutbox.LoopWriter(bound: NIOLoopBound(writer, eventLoop: channel.eventLoop)))
        writer.drain()
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        waiting.removeAll()
        outbox.detach()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .connectionClose {
            closed = true
            waiting.removeAll()
        }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writeWaiting(context)
        if context.channel.isWritable { drain() }
        context.fireChannelWritabilityChanged()
    }

    /// Writes what the outbox holds (on the event loop).
    func drain() {
        if let context, !closed, !context.channel.isWritable, !outbox.isFinished {
            // Taken when the socket is writable again; until then, whatever
            // comes waits in the outbox without waking this writer.
            return
        }
        let (frames, finished) = outbox.takeAll()
        if let context, !closed {
            writeWaiting(context)
            var wrote = false
            for out in frames {
                let bytes: ByteBuffer
                switch out {
                case .frame(let text): bytes = context.channel.allocator.buffer(string: text)
                case .encoded(let encoded): bytes = encoded
                case .close(let code):
                    closed = true
                    waiting.removeAll()
                    outbox.closeRequested(code)
                    continue
                }
                guard !closed else { continue }
                let frame = WebSocketFrame(fin: true, opcode: .text, data: bytes)
                if waiting.isEmpty, context.channel.isWritable {
                    context.write(wrapOutboundOut(frame), promise: nil)
                    wrote = true
                } else {
                    waiting.append(frame)
                    if waiting.count > SocketOutbox.maxFrames { waiting.removeFirst() }
                }
            }
            if wrote { context.flush() }
        }
        if finished {
            closed = true
            waiting.removeAll()
            outbox.detach()
        }
    }

    private func writeWaiting(_ context: ChannelHandlerContext) {
        var wrote = false
        while !closed, context.channel.isWritable, let next = waiting.popFirst() {
            context.write(wrapOutboundOut(next), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
    }
}

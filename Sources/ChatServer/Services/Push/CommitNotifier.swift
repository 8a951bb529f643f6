import ChatCore
import Dispatch
import NIOCore
import Synchronization

/// The one place that speaks after a commit, and only after it: a user's
/// sockets hear of their log's new end once the events are stored, and the
/// after-send hook sees only messages that are.
final class CommitNotifier: Sendable {
    let hub: PushHub
    /// The other nodes sharing the database, if any.
    let bus: (any ClusterBus)?
    /// Called after a committed send (the demo peers listen here).
    let afterSend = Mutex<AfterSendHook?>(nil)
    /// A room's frames go out one after another in the order they were
    /// queued: a send's frame is queued before its sender is answered, so a
    /// reaction to it (queued after its own commit) never arrives first.
    private let roomQueue = DispatchQueue(label: "tongban.room-push")

    init(hub: PushHub, bus: (any ClusterBus)? = nil) {
        self.hub = hub
        self.bus = bus
    }

    /// A commit logged events: `cursors` holds each user's newest.
    func committed(_ cursors: [Int: Int]) {
        hub.notify(cursors)
        bus?.publish(cursors)
    }

    /// A room's frames after its commit: to the sockets here of `uids`, and
    /// to the other nodes' (which read each frame back by its reference).
    func roomPushed(_ frames: [RoomFrame], to uids: [Int]) {
        guard !frames.isEmpty, !uids.isEmpty else { return }
        roomQueue.async { [hub, bus] in
            for f in frames { hub.send(.encoded(ByteBuffer(string: PushHub.encode(f.frame))), to: uids) }
            guard let bus else { return }
            let payloads = frames.flatMap { ClusterPayload.roomPayloads(node: bus.node, ref: $0.ref, uids: uids) }
            bus.publish { payloads }
        }
    }

    /// One of `a` and `b` blocked the other: on every node, each looks
    /// offline to the other's sockets from now on.
    func hidden(_ a: Int, _ b: Int) {
        hub.hide(a, b)
        guard let bus else { return }
        let payload = ClusterPayload.hiddenPayload(node: bus.node, a, b)
        bus.publish { [payload] }
    }

    /// A frame that lives only on sockets (typing, read_changed): to the
    /// sockets here of `uids`, and to the other nodes'.
    func live(_ frame: PushFrame, to uids: [Int]) {
        guard !uids.isEmpty else { return }
        hub.send(.frame(PushHub.encode(frame)), to: uids)
        guard let bus else { return }
        let payloads = ClusterPayload.livePayloads(node: bus.node, frame: frame, uids: uids)
        bus.publish { payloads }
    }

    /// Waits until the room frames queued so far went out.
    func drain() { roomQueue.sync {} }

    /// Queues the room frames of committed sends; called before their
    /// senders are answered (see `roomQueue`).
    func roomSendsCommitted(_ writes: [MessageService.SendWrite]) {
        for w in writes where w.isNew {
            if let present = w.room { roomPushed([RoomFrame(frame: .room(w.row.wire), ref: .message(w.row.id))], to: present) }
        }
    }

    /// Sends committed (a group, or one): one notice per user for all of
    /// them, then the hook for each new message. (Their room frames were
    /// queued already: `roomSendsCommitted`.)
    func sendsCommitted(_ writes: [MessageService.SendWrite]) {
        var cursors: [Int: Int] = [:]
        for w in writes { cursors.merge(w.cursors, uniquingKeysWith: max) }
        committed(cursors)
        guard let hook = afterSend.withLock({ $0 }) else { return }
        for w in writes where w.isNew { hook.run(w.row.wire) }
    }
}

/// A closure kept in a `Mutex`, wrapped in a struct on purpose. Stored bare
/// (`Mutex<(@Sendable (WireMessage) -> Void)?>`), the closure lives in the
/// mutex's generic storage, and every `withLock` - even `{ $0 }` - converts
/// it to the concrete representation and back on write-back, wrapping it in
/// two more reabstraction thunks each time: the n-th call would run through
/// a chain of 2n thunks. A struct field keeps its one representation,
/// whoever copies it.
struct AfterSendHook: Sendable {
    let run: @Sendable (WireMessage) -> Void
}

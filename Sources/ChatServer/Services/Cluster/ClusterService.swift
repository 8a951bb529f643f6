import ChatCore
import Dispatch
import Logging
import NIOCore
import Synchronization

/// A cluster node's side of the other nodes, through the `ClusterBus`: their
/// commits reach this node's sockets, their logouts leave its token cache,
/// presence holds across nodes, and a node that vanished without a word
/// (`kill -9`) stops counting its users as online.
final class ClusterService: Sendable {
    let bus: any ClusterBus
    let hub: PushHub
    let auth: AuthService
    let syncLog: SyncLogService
    let logger: Logger
    /// Presence changes in the order they were heard, off the listener's
    /// task (telling contacts reads the database).
    private let queue = DispatchQueue(label: "tongban.cluster")
    private let sweeper = Mutex<Task<Void, Never>?>(nil)
    /// Set by `stop`: work queued before it that runs after it is dropped.
    private let stopped = Atomic<Bool>(false)
    /// How often the node looks for nodes that are gone.
    static let sweepInterval = Duration.seconds(5)

    /// A room's frame by its reference (RoomService.frame).
    let roomFrame: @Sendable (RoomFrameRef) -> PushFrame?

    init(bus: any ClusterBus, hub: PushHub, auth: AuthService, syncLog: SyncLogService, logger: Logger,
         roomFrame: @escaping @Sendable (RoomFrameRef) -> PushFrame?) {
        self.roomFrame = roomFrame
        self.bus = bus
        self.hub = hub
        self.auth = auth
        self.syncLog = syncLog
        self.logger = logger
    }

    func start() {
        let bus = self.bus
        hub.localPresence.withLock {
            $0 = PresenceHook { uid, online in
                bus.publish { [ClusterPayload.presencePayload(node: bus.node, uid: uid, online: online)] }
            }
        }
        bus.start(deliver: { [self] notice in heard(notice) },
                  listening: { [self] again in listening(again: again) },
                  lost: { [auth] in auth.setTokenCache(open: false) })
        let sweeping = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.sweepInterval)
                guard let self, !Task.isCancelled else { return }
                self.later { self.forgetVanishedNodes() }
            }
        }
        sweeper.withLock { $0 = sweeping }
    }

    func stop() async {
        stopped.store(true, ordering: .sequentiallyConsistent)
        sweeper.withLock { task in
            task?.cancel()
            task = nil
        }
        hub.localPresence.withLock { $0 = nil }
        await bus.stop()
        // Nothing queued here touches the database once this returns.
        queue.sync {}
    }

    /// Runs `work` on the queue unless the node is stopping.
    private func later(_ work: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
            work()
        }
    }

    /// Looks for vanished nodes now (done every few seconds anyway).
    func sweep() { queue.sync { forgetVanishedNodes() } }

    private func heard(_ notice: ClusterNotice) {
        switch notice {
        case .cursors(let cursors):
            hub.notify(cursors)
        case .logout(let hash):
            auth.forget(tokenHash: hash)
        case .presence(let node, let uid, let online):
            later { [hub] in hub.presence(on: node, uid: uid, online: online) }
        case .online(let node, let uids):
            later { [hub] in hub.online(on: node, uids: uids) }
        case .hidden(let a, let b):
            hub.hide(a, b)
        case .live(let frame, let uids):
            hub.send(.frame(PushHub.encode(frame)), to: uids)
        case .room(let ref, let uids):
            // Only users with a socket here; the frame is read back from the database.
            let local = uids.filter { hub.hasSocket($0) }
            guard !local.isEmpty else { return }
            later { [hub, roomFrame] in
                if let frame = roomFrame(ref) { hub.send(.encoded(ByteBuffer(string: PushHub.encode(frame))), to: local) }
            }
        case .hello:
            // Who is online here, read when the answer is sent: a change
            // published before it is then already in it, one after it follows it.
            bus.publish { [hub, bus] in ClusterPayload.onlinePayloads(node: bus.node, uids: hub.onlineUsers) }
        }
    }

    private func listening(again: Bool) {
        // From now on every logout is heard here.
        auth.setTokenCache(open: true)
        later { [self] in
            guard again else { return }
            // Notices sent while the listener was away are lost: other
            // nodes' presence is asked for again (below), and every socket
            // here is told its log's end once.
            hub.forgetOtherNodes()
            var cursors: [Int: Int] = [:]
            for uid in hub.onlineUsers {
                if let c = try? syncLog.currentCursor(uid: uid), c > 0 { cursors[uid] = c }
            }
            hub.notify(cursors)
        }
        // The others may have given this node up while it was away.
        bus.publish { [hub, bus] in
            [ClusterPayload.helloPayload(node: bus.node)] + ClusterPayload.onlinePayloads(node: bus.node, uids: hub.onlineUsers)
        }
    }

    private func forgetVanishedNodes() {
        do {
            hub.forgetNodes(except: try bus.liveNodes())
        } catch {
            logger.warning("cannot tell which cluster nodes are alive: \(error)")
        }
    }
}

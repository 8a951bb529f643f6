import ChatCore
import Foundation
import Synchronization

/// Open WebSockets by user. Frames go into each socket's own stream, which
/// its connection task writes in order, so notifying never blocks a request.
public final class PushHub: Sendable {
    struct Connection: Sendable {
        let id: Int
        let continuation: AsyncStream<String>.Continuation
    }
    private struct State {
        var next = 0
        var sockets: [Int: [Connection]] = [:]
    }
    private let state = Mutex(State())
    /// Who should see a user's presence; set by PresenceService. In a struct,
    /// not bare in the mutex (see AfterSendHook).
    let contacts = Mutex<ContactsLookup?>(nil)

    public init() {}

    public func isOnline(_ uid: Int) -> Bool { state.withLock { !($0.sockets[uid]?.isEmpty ?? true) } }

    public var onlineCount: Int { state.withLock { $0.sockets.count } }

    /// Users with a socket on this node.
    var onlineUsers: [Int] { state.withLock { Array($0.sockets.keys) } }

    /// Registers a socket; returns its id and whether the user just came online.
    func connect(uid: Int, continuation: AsyncStream<String>.Continuation) -> Int {
        let (id, first) = state.withLock { s -> (Int, Bool) in
            s.next += 1
            let first = s.sockets[uid]?.isEmpty ?? true
            s.sockets[uid, default: []].append(Connection(id: s.next, continuation: continuation))
            return (s.next, first)
        }
        if first { broadcastPresence(uid: uid, online: true) }
        return id
    }

    func disconnect(uid: Int, id: Int) {
        let last = state.withLock { s -> Bool in
            s.sockets[uid]?.removeAll { $0.id == id }
            if s.sockets[uid]?.isEmpty ?? false { s.sockets[uid] = nil; return true }
            return false
        }
        if last { broadcastPresence(uid: uid, online: false) }
    }

    /// Tells each user's sockets that their log grew to `cursor`.
    func notify(_ cursors: [Int: Int]) {
        guard !cursors.isEmpty else { return }
        let targets = state.withLock { s in cursors.map { (s.sockets[$0.key] ?? [], $0.value) } }
        for (conns, cursor) in targets {
            let frame = Self.encode(.sync(cursor: cursor))
            for c in conns { c.continuation.yield(frame) }
        }
    }

    func broadcastPresence(uid: Int, online: Bool) {
        let peers = contacts.withLock { $0 }?.of(uid) ?? []
        let frame = Self.encode(.presence(userId: ConversationIDHelper.imUid(uid), online: online))
        let conns = state.withLock { s in peers.flatMap { s.sockets[$0] ?? [] } }
        for c in conns { c.continuation.yield(frame) }
    }

    static func encode(_ frame: PushFrame) -> String {
        frame.jsonText { (try? String(decoding: JSONEncoder().encode($0), as: UTF8.self)) ?? "{}" }
    }

    /// Ends every socket (shutdown).
    func closeAll() {
        let all = state.withLock { s -> [Connection] in
            defer { s.sockets = [:] }
            return s.sockets.values.flatMap { $0 }
        }
        for c in all { c.continuation.finish() }
    }
}

/// Who should see a user's presence (see AfterSendHook for why a struct).
struct ContactsLookup: Sendable {
    let of: @Sendable (Int) -> [Int]
}

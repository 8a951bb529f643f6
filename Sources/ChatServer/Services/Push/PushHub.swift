import ChatCore
import Foundation
import NIOCore
import Synchronization

/// Open WebSockets by user. Frames go into each socket's own outbox, which
/// its writer writes in order on the socket's event loop, so notifying
/// never blocks a request.
///
/// Presence: a user is online while one of their sockets is open anywhere
/// in the cluster. The hub knows its own sockets and, from the other
/// nodes' notices, which users have one on which other node; contacts hear
/// of a change only when it is one for the cluster as a whole.
public final class PushHub: Sendable {
    /// What a socket's writer sends next.
    enum Outgoing: Sendable, Equatable {
        case frame(String)
        /// A text frame's bytes, made once for every socket it goes to (a
        /// room's message: a copy per socket would cost more than its write).
        case encoded(ByteBuffer)
        /// Closes the socket with this code (4001: its token was revoked).
        case close(code: UInt16)
    }
    struct Connection: Sendable {
        let id: Int
        /// The token the socket authenticated with; its end closes the socket.
        let tokenHash: String
        let outbox: SocketOutbox
    }
    private struct State {
        var next = 0
        var sockets: [Int: [Connection]] = [:]
        /// Users with a socket on another node, by node.
        var elsewhere: [String: Set<Int>] = [:]

        func isOnlineElsewhere(_ uid: Int) -> Bool { elsewhere.values.contains { $0.contains(uid) } }
        func isOnline(_ uid: Int) -> Bool { !(sockets[uid]?.isEmpty ?? true) || isOnlineElsewhere(uid) }
    }
    private let state = Mutex(State())
    /// Who should see a user's presence; set by PresenceService. In a struct,
    /// not bare in the mutex (see AfterSendHook).
    let contacts = Mutex<ContactsLookup?>(nil)
    /// Told when a user's first socket on this node opens or their last one
    /// here closes (a cluster's node tells the others).
    let localPresence = Mutex<PresenceHook?>(nil)
    /// Told when a user has no socket anywhere any more: their last one here
    /// closed and none is open elsewhere, or the node they were on vanished
    /// (rooms: offline is left). Set by ServerServices.
    let wentOffline = Mutex<OfflineHook?>(nil)

    public init() {}

    public func isOnline(_ uid: Int) -> Bool { state.withLock { $0.isOnline(uid) } }

    public var onlineCount: Int { state.withLock { $0.sockets.count } }

    /// Users with a socket on this node.
    var onlineUsers: [Int] { state.withLock { Array($0.sockets.keys) } }

    /// Registers a socket; returns its id.
    func connect(uid: Int, tokenHash: String = "", outbox: SocketOutbox) -> Int {
        let (id, first, elsewhere) = state.withLock { s -> (Int, Bool, Bool) in
            s.next += 1
            let first = s.sockets[uid]?.isEmpty ?? true
            s.sockets[uid, default: []].append(Connection(id: s.next, tokenHash: tokenHash, outbox: outbox))
            return (s.next, first, s.isOnlineElsewhere(uid))
        }
        if first {
            localPresence.withLock { $0 }?.run(uid, true)
            if !elsewhere { broadcastPresence(uid: uid, online: true) }
        }
        return id
    }

    func disconnect(uid: Int, id: Int) {
        let (last, elsewhere) = state.withLock { s -> (Bool, Bool) in
            s.sockets[uid]?.removeAll { $0.id == id }
            guard s.sockets[uid]?.isEmpty ?? false else { return (false, false) }
            s.sockets[uid] = nil
            return (true, s.isOnlineElsewhere(uid))
        }
        if last {
            localPresence.withLock { $0 }?.run(uid, false)
            if !elsewhere {
                broadcastPresence(uid: uid, online: false)
                wentOffline.withLock { $0 }?.run(uid, false)
            }
        }
    }

    /// `node` says a user's first socket there opened (or last one closed).
    func presence(on node: String, uid: Int, online: Bool) {
        let changed = state.withLock { s -> Bool in
            let before = s.isOnline(uid)
            if online { s.elsewhere[node, default: []].insert(uid) } else { s.elsewhere[node]?.remove(uid) }
            return s.isOnline(uid) != before
        }
        if changed { broadcastPresence(uid: uid, online: online) }
        // Their last sockets here and there closed at once: neither node saw the user go, this one does.
        if changed && !online { wentOffline.withLock { $0 }?.run(uid, false) }
    }

    /// `node` says who has a socket there (its answer to a hello).
    func online(on node: String, uids: [Int]) {
        for uid in uids { presence(on: node, uid: uid, online: true) }
    }

    /// Forgets the nodes not in `live`: their users are offline unless
    /// online here or on a node that is.
    func forgetNodes(except live: Set<String>) {
        let offline = state.withLock { s -> [Int] in
            var dropped = Set<Int>()
            for node in s.elsewhere.keys where !live.contains(node) {
                dropped.formUnion(s.elsewhere.removeValue(forKey: node) ?? [])
            }
            return dropped.filter { !s.isOnline($0) }.sorted()
        }
        for uid in offline {
            broadcastPresence(uid: uid, online: false)
            // Their node may only have lost the database for a moment: asked again after a grace.
            wentOffline.withLock { $0 }?.run(uid, true)
        }
    }

    /// Forgets every other node's users: this node's listener was away and
    /// may have missed their going offline; the answers to its hello tell it again.
    func forgetOtherNodes() { state.withLock { $0.elsewhere = [:] } }

    /// Tells each user's sockets that their log grew to `cursor`.
    func notify(_ cursors: [Int: Int]) {
        guard !cursors.isEmpty else { return }
        let targets = state.withLock { s in
            cursors.compactMap { uid, cursor in s.sockets[uid].map { conns in (conns, cursor) } }
        }
        SocketOutbox.wake(targets.flatMap { conns, cursor in conns.compactMap { $0.outbox.pushSync(cursor) } })
    }

    /// Whether `uid` has a socket on this node.
    func hasSocket(_ uid: Int) -> Bool { state.withLock { !($0.sockets[uid]?.isEmpty ?? true) } }

    /// `frame` to every socket here of each of `uids`.
    func send(_ frame: Outgoing, to uids: [Int]) {
        let conns = state.withLock { s in uids.flatMap { s.sockets[$0] ?? [] } }
        SocketOutbox.deliver(frame, to: conns.map(\.outbox))
    }

    /// A block between `a` and `b`: each who is online looks offline to the other's sockets here.
    func hide(_ a: Int, _ b: Int) {
        for (who, from) in [(a, b), (b, a)] where isOnline(who) && hasSocket(from) {
            send(.frame(Self.encode(.presence(userId: ConversationIDHelper.imUid(who), online: false))), to: [from])
        }
    }

    func broadcastPresence(uid: Int, online: Bool) {
        let peers = contacts.withLock { $0 }?.of(uid) ?? []
        send(.frame(Self.encode(.presence(userId: ConversationIDHelper.imUid(uid), online: online))), to: peers)
    }

    static func encode(_ frame: PushFrame) -> String {
        frame.jsonText { (try? String(decoding: JSONEncoder().encode($0), as: UTF8.self)) ?? "{}" }
    }

    /// Closes the sockets of a token that ended (revoked, logged out) with
    /// code 4001, so their clients go back to sign-in at once.
    func signOut(tokenHash: String) {
        guard !tokenHash.isEmpty else { return }
        let conns = state.withLock { s in s.sockets.values.flatMap { $0.filter { $0.tokenHash == tokenHash } } }
        for c in conns {
            c.outbox.send(.close(code: PushCloseCode.signedOut))
            c.outbox.finish()
        }
    }

    /// Ends every socket (shutdown).
    func closeAll() {
        let all = state.withLock { s -> [Connection] in
            defer { s.sockets = [:] }
            return s.sockets.values.flatMap { $0 }
        }
        for c in all { c.outbox.finish() }
    }
}

/// A user came online or went offline on this node (see AfterSendHook for why a struct).
/// Told that a user has no socket anywhere (`vanished`: because their node
/// stopped answering, which may pass).
struct OfflineHook: Sendable {
    let run: @Sendable (_ uid: Int, _ vanished: Bool) -> Void
}

struct PresenceHook: Sendable {
    let run: @Sendable (_ uid: Int, _ online: Bool) -> Void
}

/// Who should see a user's presence (see AfterSendHook for why a struct).
struct ContactsLookup: Sendable {
    let of: @Sendable (Int) -> [Int]
}

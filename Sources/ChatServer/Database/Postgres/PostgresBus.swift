import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Tells the other nodes of a cluster which users' logs grew, through
/// PostgreSQL's LISTEN/NOTIFY, so a socket on node B hears of a send
/// committed by node A (no broker besides the database); which tokens a
/// logout ended, so no node keeps one in its cache; and who came online or
/// went offline on which node, so presence holds across the cluster.
///
/// A notice is a hint, as on one node: the events are in the log, and a
/// client that missed the notice finds them at its next sync. So a notice
/// is sent after the commit, without waiting for it; a listener that lost
/// its connection tells its own sockets to sync once it is back.
final class PostgresBus: Sendable {
    static let channel = "tongban_sync"
    /// Under PostgreSQL's 8000-byte payload limit.
    static let maxPayload = 7_000

    let node: String
    private let pool: PostgresPool
    private let logger: Logger
    private let queue = DispatchQueue(label: "tongban.bus.publish")
    /// The connection notices go out on; once stopped, none is opened again.
    private struct Publisher: Sendable {
        var connection: PostgresConnection?
        var stopped = false
    }
    private let publisher = Mutex(Publisher())
    private let listener = Mutex<Task<Void, Never>?>(nil)
    private let listenerConnection = Mutex<PostgresConnection?>(nil)

    init(pool: PostgresPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
        node = String(UUID().uuidString.prefix(8))
    }

    /// Payloads for `cursors`: `NODE uid:cursor uid:cursor ...`, split to fit.
    static func payloads(node: String, _ cursors: [Int: Int]) -> [String] {
        split(node, cursors.sorted(by: { $0.key < $1.key }).map { "\($0.key):\($0.value)" })
    }

    /// `head item item ...`, split into as many payloads as it takes.
    static func split(_ head: String, _ items: [String]) -> [String] {
        var out: [String] = []
        var current = head
        for item in items {
            if current.utf8.count + 1 + item.utf8.count > maxPayload {
                out.append(current)
                current = head
            }
            current += " " + item
        }
        if current.count > head.count { out.append(current) }
        return out
    }

    /// What a notice says.
    enum Notice: Equatable {
        /// Users' newest cursors, from another node.
        case cursors([Int: Int])
        /// A logout (on any node, this one too) ended the token with this hash.
        case logout(tokenHash: String)
        /// A user's first socket on another node opened, or their last one there closed.
        case presence(node: String, uid: Int, online: Bool)
        /// Another node (again) listens and asks who is online where.
        case hello(node: String)
        /// Users with a socket on another node (its answer to a hello).
        case online(node: String, uids: [Int])
    }

    /// The notice a logout's transaction sends (`logout HASH`). A node name
    /// is eight hex digits, so it never reads as one of the keywords.
    static func logoutPayload(tokenHash: String) -> String { "logout " + tokenHash }
    static func presencePayload(node: String, uid: Int, online: Bool) -> String {
        "presence \(node) \(online ? "+" : "-")\(uid)"
    }
    static func helloPayload(node: String) -> String { "hello " + node }
    /// `online NODE uid uid ...`, split to fit; an empty list says so too.
    static func onlinePayloads(node: String, uids: [Int]) -> [String] {
        uids.isEmpty ? ["online " + node] : split("online " + node, uids.sorted().map(String.init))
    }

    /// What a payload says; nil for a notice of this node's own or a malformed one.
    static func parse(_ payload: String, ownNode: String) -> Notice? {
        let parts = payload.split(separator: " ")
        guard let first = parts.first else { return nil }
        if first == "logout" { return parts.count == 2 ? .logout(tokenHash: String(parts[1])) : nil }
        if ["presence", "hello", "online"].contains(first) {
            guard parts.count >= 2, parts[1] != ownNode else { return nil }
            let node = String(parts[1])
            switch first {
            case "presence":
                guard parts.count == 3, let sign = parts[2].first, "+-".contains(sign),
                      let uid = Int(parts[2].dropFirst()) else { return nil }
                return .presence(node: node, uid: uid, online: sign == "+")
            case "hello":
                return parts.count == 2 ? .hello(node: node) : nil
            default:
                let uids = parts.dropFirst(2).compactMap { Int($0) }
                return uids.count == parts.count - 2 ? .online(node: node, uids: uids) : nil
            }
        }
        guard first != ownNode else { return nil }
        var cursors: [Int: Int] = [:]
        for item in parts.dropFirst() {
            let pair = item.split(separator: ":")
            guard pair.count == 2, let uid = Int(pair[0]), let cursor = Int(pair[1]) else { return nil }
            cursors[uid] = max(cursors[uid] ?? 0, cursor)
        }
        return .cursors(cursors)
    }

    /// Sends `cursors` to the other nodes, in commit order, off the caller's thread.
    func publish(_ cursors: [Int: Int]) {
        guard !cursors.isEmpty else { return }
        let payloads = Self.payloads(node: node, cursors)
        publish { payloads }
    }

    /// Sends the payloads `make` returns, in the order of the calls, off the
    /// caller's thread; `make` runs just before they are sent.
    func publish(_ make: @escaping @Sendable () -> [String]) {
        queue.async { [self] in
            // A socket closing as the node shuts down still publishes: too late.
            guard !publisher.withLock({ $0.stopped }) else { return }
            for payload in make() {
                do {
                    let conn = try publisherConnection()
                    _ = try conn.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger).wait()
                } catch {
                    // Clients still find the events by polling or their next sync.
                    logger.warning("cluster notice not sent: \(PostgresFailure.describe(error))")
                    let failed = publisher.withLock { p in defer { p.connection = nil }; return p.connection }
                    failed?.close().whenComplete { @Sendable _ in }
                }
            }
        }
    }

    /// The nodes whose listener is connected now (each names its listening
    /// connection after itself): a node killed without a word is not among them.
    func liveNodes() throws -> Set<String> {
        try pool.withConnection { conn in
            let names = try conn.query("""
                SELECT application_name FROM pg_stat_activity WHERE application_name LIKE \(Self.applicationPrefix + "%")
                """).map { try $0.decode(String.self) }
            return Set(names.map { String($0.dropFirst(Self.applicationPrefix.count)) })
        }
    }

    static let applicationPrefix = "tongban-node "

    private func publisherConnection() throws -> PostgresConnection {
        if let conn = publisher.withLock({ $0.connection }), !conn.isClosed { return conn }
        let conn = try pool.connect()
        publisher.withLock { $0.connection = conn }
        return conn
    }

    /// Listens until `stop()`: each notice goes to `deliver`. `listening`
    /// runs each time the listener is (again) in place - `true` after a
    /// reconnection, when notices sent meanwhile are lost - and `lost` each
    /// time it is not.
    func start(deliver: @escaping @Sendable (Notice) -> Void, listening: @escaping @Sendable (_ again: Bool) -> Void,
               lost: @escaping @Sendable () -> Void) {
        let task = Task.detached { [self] in
            var reconnected = false
            while !Task.isCancelled {
                do {
                    let conn = try await pool.connectAsync(applicationName: Self.applicationPrefix + node)
                    listenerConnection.withLock { $0 = conn }
                    if Task.isCancelled { try? await conn.close(); return }
                    do {
                        try await conn.listen(on: Self.channel) { notices in
                            listening(reconnected)
                            for try await notice in notices {
                                if let parsed = Self.parse(notice.payload, ownNode: node) { deliver(parsed) }
                            }
                        }
                    } catch {
                        try? await conn.close()
                        throw error
                    }
                    try? await conn.close()
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("cluster listener lost its connection (\(PostgresFailure.describe(error))); reconnecting")
                }
                lost()
                reconnected = true
                try? await Task.sleep(for: .seconds(1))
            }
        }
        listener.withLock { $0 = task }
    }

    /// Stops listening and closes both connections; returns when they are closed.
    func stop() async {
        let task = listener.withLock { t in defer { t = nil }; return t }
        task?.cancel()
        // Closing the connection ends the notice sequence the task waits in.
        if let conn = listenerConnection.withLock({ $0 }) { try? await conn.close() }
        await task?.value
        let publisherConn = queue.sync {
            publisher.withLock { p in
                p.stopped = true
                defer { p.connection = nil }
                return p.connection
            }
        }
        if let publisherConn { try? await publisherConn.close() }
    }
}

import ChatServer
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
final class PostgresBus: ClusterBus {
    static let channel = "tongban_sync"
    
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

    /// Sends the payloads `make` returns, in the order of the calls, off the
    /// caller's thread; `make` runs just before they are sent. What piles
    /// up while a notice is on its way goes out together, in one statement:
    /// a busy node otherwise paid a round trip, and a backend's work, per
    /// commit.
    func publish(_ make: @escaping @Sendable () -> [String]) {
        let first = pending.withLock { p in
            p.append(make)
            return p.count == 1
        }
        guard first else { return }
        queue.async { [self] in
            let makes = pending.withLock { p in defer { p.removeAll() }; return p }
            // A socket closing as the node shuts down still publishes: too late.
            guard !publisher.withLock({ $0.stopped }) else { return }
            let payloads = makes.flatMap { $0() }
            var start = 0
            while start < payloads.count {
                let end = min(start + Self.perStatement, payloads.count)
                do {
                    let conn = try publisherConnection()
                    // unnest hands the payloads to pg_notify in the array's
                    // order, and notices of one transaction arrive in the order sent.
                    _ = try conn.query("SELECT pg_notify(\(Self.channel), p) FROM unnest(\(Array(payloads[start..<end]))::text[]) AS p",
                                       logger: logger).wait()
                } catch {
                    // Clients still find the events by polling or their next sync.
                    logger.warning("cluster notice not sent: \(PostgresFailure.describe(error))")
                    let failed = publisher.withLock { p in defer { p.connection = nil }; return p.connection }
                    failed?.close().whenComplete { @Sendable _ in }
                }
                start = end
            }
        }
    }

    /// Payloads per statement: each is under 8,000 bytes, so one statement
    /// carries a megabyte at most.
    private static let perStatement = 128
    /// The payload makers not yet taken by the publishing queue.
    private let pending = Mutex<[@Sendable () -> [String]]>([])

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
    func start(deliver: @escaping @Sendable (ClusterNotice) -> Void, listening: @escaping @Sendable (_ again: Bool) -> Void,
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
                                if let parsed = ClusterPayload.parse(notice.payload, ownNode: node) { deliver(parsed) }
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

import ChatServer
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// The server's storage in PostgreSQL, shared by any number of nodes.
///
/// The services' transactions are synchronous (see `ChatStorage`), so each
/// one checks a connection out of a small pool and waits on its queries;
/// the queries themselves run on event loops of their own, which nothing
/// else uses, so a waiting service never blocks the loop it waits for.
///
/// Every write transaction first takes one cluster-wide advisory lock.
/// That keeps the two promises the sync protocol makes across nodes: a
/// user's log cursors rise in commit order (a reader who has seen cursor n
/// never later finds a committed entry below it), and a conversation's seqs
/// have no holes. Group commit keeps this cheap: one node's concurrent sends
/// share a transaction, so they take the lock once.
final class PostgresStorage: ChatStorage {
    let pool: PostgresPool
    let logger: Logger

    /// Batches whose bulk write failed and that were written one job at a
    /// time (a text PostgreSQL refuses, a constraint).
    var bulkFallbacks: Int { fallbacks.load(ordering: .relaxed) }
    private let fallbacks = Atomic<Int>(0)

    /// The advisory lock every write transaction holds until it ends.
    static let writeLock: Int64 = 0x746F_6E67_6261_6E01

    private init(pool: PostgresPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    /// Connects to `url`, brings the schema up to date (once, whichever
    /// node gets there first) and returns the storage.
    static func open(url: String, logger: Logger, connections: Int = 8) throws -> PostgresStorage {
        let config = try PostgresURL.parse(url)
        let pool = PostgresPool(configuration: config, size: connections, logger: logger)
        do {
            try pool.withConnection { conn in try PostgresMigrations.migrate(conn) }
        } catch {
            pool.shutdown()
            throw ServerSetupError(description: "cannot use the PostgreSQL database at \(PostgresURL.redacted(url)): \(PostgresFailure.describe(error))")
        }
        return PostgresStorage(pool: pool, logger: logger)
    }

    func read<T>(_ body: (any StorageTransaction) throws -> T) throws -> T {
        try pool.withConnection { conn in
            // REPEATABLE READ: one snapshot for the whole body, as SQLite's
            // readers have. Nothing waits for the BEGIN or the COMMIT of a
            // read: the body's first query waits for the BEGIN, and the
            // connection's next user for the COMMIT.
            conn.send("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let result = try body(PostgresTransaction(conn: conn))
                conn.send("COMMIT")
                return result
            } catch {
                conn.send("ROLLBACK")
                throw error
            }
        }
    }

    func write<T>(_ body: (any StorageTransaction) throws -> T) throws -> T {
        try pool.withConnection { conn in
            try conn.transaction(holding: Self.writeLock) { try body(PostgresTransaction(conn: conn)) }
        }
    }

    func writeGroup<Job, Output>(_ jobs: [Job], _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        try group(jobs, more: nil, bulk: nil, body)
    }

    func writeGroup<Job, Output>(_ jobs: [Job], bulk: ([Job], any StorageTransaction) throws -> [Output?],
                                 _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        try withoutActuallyEscaping(bulk) { bulk in try group(jobs, more: nil, bulk: bulk, body) }
    }

    func writeGroup<Job, Output>(_ jobs: [Job], more: () -> [Job],
                                 bulk: (([Job], any StorageTransaction) throws -> [Output?])?,
                                 _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        try withoutActuallyEscaping(more) { more in try group(jobs, more: more, bulk: bulk, body) }
    }

    /// Without `bulk` no savepoint is spent on it: every job goes alone.
    /// With `more`, the lock is waited for before the group is complete:
    /// the sends that reach this node while another node commits go into
    /// this transaction instead of waiting for it to end, one round trip
    /// more per transaction for a commit less to wait.
    private func group<Job, Output>(_ jobs: [Job], more: (() -> [Job])?,
                                    bulk: (([Job], any StorageTransaction) throws -> [Output?])?,
                                    _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        try pool.withConnection { conn in
            try conn.transaction(holding: Self.writeLock) {
                var jobs = jobs
                if let more {
                    try conn.flush()
                    jobs += more()
                }
                let tx = PostgresTransaction(conn: conn)
                var outputs = [Output?](repeating: nil, count: jobs.count)
                if let bulk {
                    do {
                        outputs = try conn.savepoint("bulk") { try bulk(jobs, tx) }
                    } catch {
                        // A constraint or a text PostgreSQL refuses: each job alone finds out whose.
                        fallbacks.add(1, ordering: .relaxed)
                        logger.debug("batch of \(jobs.count) written one by one: \(PostgresFailure.describe(error))")
                    }
                }
                return zip(jobs, outputs).map { job, output -> Result<Output, any Error> in
                    if let output { return .success(output) }
                    // A lost connection fails every job from here on, and then the commit.
                    return Result { try conn.savepoint("job") { try body(job, tx) } }
                }
            }
        }
    }

    /// The media signing secret every node shares: made by the first node
    /// that needs it, read by the others.
    func signingSecret() throws -> Data {
        let fresh = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        return try pool.withConnection { conn in
            try conn.execute("INSERT INTO secret(name, value) VALUES ('media', \(fresh)) ON CONFLICT (name) DO NOTHING")
            guard let row = try conn.query("SELECT value FROM secret WHERE name = 'media'").first else {
                throw ServerSetupError(description: "the shared signing secret is missing")
            }
            return try row.decode(Data.self)
        }
    }

    func close() { pool.shutdown() }
}

/// One transaction's repositories over its connection.
struct PostgresTransaction: StorageTransaction {
    let conn: PostgresLink

    var accounts: any AccountRepository { PostgresAccountRepository(conn: conn) }
    var users: any UserRepository { PostgresUserRepository(conn: conn) }
    var conversations: any ConversationRepository { PostgresConversationRepository(conn: conn) }
    var messages: any MessageRepository { PostgresMessageRepository(conn: conn) }
    var syncLog: any SyncLogRepository { PostgresSyncLogRepository(conn: conn) }
    var media: any MediaRepository { PostgresMediaRepository(conn: conn) }
    var signals: any SignalRepository { PostgresSignalRepository(conn: conn) }
    var groups: any GroupRepository { PostgresGroupRepository(conn: conn) }
    var favorites: any FavoriteRepository { PostgresFavoriteRepository(conn: conn) }
    var people: any PeopleRepository { PostgresPeopleRepository(conn: conn) }
    var rooms: any RoomRepository { PostgresRoomRepository(conn: conn) }
    var usage: any UsageRepository { PostgresUsageRepository(conn: conn) }
    var keys: any KeyRepository { PostgresKeyRepository(conn: conn) }
    var sendBatch: (any SendBatchRepository)? { PostgresSendBatchRepository(conn: conn) }
}

/// A PostgreSQL error as the services see it: "disk full" becomes
/// `storage_full`, as SQLite's does.
struct PostgresFailure: StorageError, CustomStringConvertible {
    let underlying: any Error
    var sqlState: String? { (underlying as? PSQLError)?.serverInfo?[.sqlState] }
    /// 53100 disk_full, 53200 out_of_memory is not: that is the server's own trouble.
    var isStorageFull: Bool { sqlState == "53100" }
    var description: String { Self.describe(underlying) }

    /// The server's own message when there is one (PSQLError's description
    /// hides it to avoid leaking data into logs by default).
    static func describe(_ error: any Error) -> String {
        if let e = error as? PostgresFailure { return describe(e.underlying) }
        guard let e = error as? PSQLError else { return String(describing: error) }
        if let info = e.serverInfo, let message = info[.message] {
            return "\(message) (SQLSTATE \(info[.sqlState] ?? "?"))"
        }
        return "\(e.code)"
    }
}

/// One checked-out connection. Statements whose answer nobody reads
/// (transaction control, plain INSERT/UPDATE/DELETE) are sent without
/// waiting: the connection runs its statements in order, so they run back
/// to back instead of each costing the caller a wake-up. Their errors are
/// not lost: the next statement that is waited for (a query, `flush`, the
/// commit) throws the first of them.
final class PostgresLink {
    let connection: PostgresConnection
    let logger: Logger
    private var unanswered: [EventLoopFuture<PostgresQueryResult>] = []

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// A statement whose rows are not needed; sent now, checked at the next
    /// wait. (Declared `throws` like every other statement of a repository.)
    func execute(_ query: PostgresQuery) throws {
        unanswered.append(connection.query(query, logger: logger))
    }

    /// A statement with no parameters (transaction control), not waited for.
    func send(_ sql: String) {
        unanswered.append(connection.query(PostgresQuery(unsafeSQL: sql), logger: logger))
    }

    /// A statement with no parameters, waited for (with everything before it).
    func run(_ sql: String) throws {
        _ = try query(PostgresQuery(unsafeSQL: sql))
    }

    /// Runs `body` in a transaction that holds the advisory lock `lock`
    /// until it ends: committed when `body` returns (and the commit was
    /// answered, with every statement before it), rolled back when it throws.
    func transaction<T>(holding lock: Int64, _ body: () throws -> T) throws -> T {
        send("BEGIN")
        do {
            try execute("SELECT pg_advisory_xact_lock(\(lock))")
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            send("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled
    /// back to when it throws (only its own statements are undone). The
    /// release is waited for, so an error of a statement `body` sent without
    /// waiting is thrown here, as `body`'s, not by whatever comes next.
    func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        send("SAVEPOINT \(name)")
        do {
            let result = try body()
            try run("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            send("ROLLBACK TO SAVEPOINT \(name)")
            send("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    /// Waits until every statement sent so far has been answered; throws the first error.
    func flush() throws {
        let pending = unanswered
        unanswered.removeAll(keepingCapacity: true)
        for future in pending {
            do {
                _ = try future.wait()
            } catch {
                throw Self.failure(error)
            }
        }
    }

    func query(_ query: PostgresQuery) throws -> PostgresQueryResult {
        let future = connection.query(query, logger: logger)
        // An earlier statement's error first: it is the cause, and it
        // aborted the transaction this one then failed in.
        try flush()
        do {
            return try future.wait()
        } catch {
            throw Self.failure(error)
        }
    }

    static func failure(_ error: any Error) -> any Error {
        let failure = PostgresFailure(underlying: error)
        // PostgreSQL's text cannot hold U+0000, which SQLite stores: the
        // request is refused, not failed as the server's fault.
        if failure.sqlState == "22021" || failure.sqlState == "22P05" {
            return APIFailure.invalid("text must not contain NUL (U+0000) characters")
        }
        return failure
    }

    /// The first column of the first row, if any.
    func scalar<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) throws -> T? {
        guard let row = try self.query(query).first else { return nil }
        let cell = row.makeRandomAccess()[0]
        return cell.bytes == nil ? nil : try cell.decode(T.self)  // NULL (an aggregate over no rows) is nil
    }
}

/// A fixed number of connections, opened on first use and opened again
/// when one was lost (a restarted database). A caller waits while all are
/// checked out.
final class PostgresPool: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let slots: DispatchSemaphore
    /// Connections not checked out; after `shutdown` none is handed out or taken back.
    private struct Idle {
        var connections: [PostgresConnection] = []
        var closed = false
    }
    private let idle = Mutex(Idle())
    private let nextID = Atomic<Int>(0)

    init(configuration: PostgresConnection.Configuration, size: Int, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // Loops of its own: a service waiting for a query never sits on one.
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        slots = DispatchSemaphore(value: max(1, size))
    }

    func withConnection<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let conn = try checkOut()
        var healthy = true
        defer {
            let kept = idle.withLock { pool -> Bool in
                guard healthy, !conn.isClosed, !pool.closed else { return false }
                pool.connections.append(conn)
                return true
            }
            if !kept { conn.close().whenComplete { _ in } }
        }
        do {
            return try body(PostgresLink(connection: conn, logger: logger))
        } catch let error as PostgresFailure where error.sqlState == nil {
            // Not an error the server answered with: the connection itself failed.
            healthy = false
            throw error
        }
    }

    /// A new connection outside the pool (the listener, the notifier).
    func connect() throws -> PostgresConnection {
        try opening().wait()
    }

    /// Async twin of `connect()`, for tasks; `applicationName` shows in
    /// `pg_stat_activity` as long as the connection lives.
    func connectAsync(applicationName: String? = nil) async throws -> PostgresConnection {
        try await opening(applicationName: applicationName).get()
    }

    private func opening(applicationName: String? = nil) -> EventLoopFuture<PostgresConnection> {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        var configuration = configuration
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        return PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger)
    }

    private func checkOut() throws -> PostgresConnection {
        while true {
            let (conn, closed) = idle.withLock { ($0.connections.popLast(), $0.closed) }
            // Work that outlived the server (a notice handled as it stops) finds the door shut.
            if closed { throw PostgresFailure(underlying: ServerSetupError(description: "the database connections are closed")) }
            guard let conn else { break }
            if !conn.isClosed { return conn }
        }
        do {
            return try connect()
        } catch {
            throw PostgresFailure(underlying: error)
        }
    }

    func shutdown() {
        let open = idle.withLock { pool in
            pool.closed = true
            defer { pool.connections.removeAll() }
            return pool.connections
        }
        for conn in open {
            _ = try? conn.close().wait()
        }
        try? group.syncShutdownGracefully()
    }
}

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, the form psql and
/// libpq take (`postgresql://` too). TLS: `?sslmode=disable` (the default
/// here, for a database on loopback or a private network) or `require`.
enum PostgresURL {
    static func parse(_ text: String) throws -> PostgresConnection.Configuration {
        guard let url = URLComponents(string: text), let scheme = url.scheme,
              ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            throw ServerSetupError(description: "--database wants postgres://USER@HOST:PORT/DATABASE, got \(redacted(text))")
        }
        guard let host = url.host, !host.isEmpty else {
            throw ServerSetupError(description: "--database \(redacted(text)) names no host")
        }
        guard let user = url.user, !user.isEmpty else {
            throw ServerSetupError(description: "--database \(redacted(text)) names no user")
        }
        let database = String(url.path.drop(while: { $0 == "/" }))
        var tls = PostgresConnection.Configuration.TLS.disable
        switch url.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable" {
        case "disable": break
        case "require":
            do {
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            } catch {
                throw ServerSetupError(description: "cannot set up TLS for the database: \(error)")
            }
        case let other:
            throw ServerSetupError(description: "--database: sslmode \(other) is not supported (disable or require)")
        }
        return PostgresConnection.Configuration(host: host, port: url.port ?? 5432, username: user,
                                                password: url.password, database: database.isEmpty ? user : database,
                                                tls: tls)
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ text: String) -> String { DatabaseURL.redacted(text) }
}

/// The seam between the services and the database. The services open
/// transactions here and reach the tables only through the repositories a
/// transaction hands out, so a backend implements this protocol, the
/// `StorageTransaction` it passes to the bodies and the ten repositories.
/// `SQLiteStorage` and `PostgresStorage` are the backends.
///
/// What every backend must keep:
/// - `write` transactions that take a conversation's next seq
///   (`ConversationRepository.takeNextSeq`) are serialised per
///   conversation, so seqs have no holes and no duplicates, and a rolled
///   back transaction (or savepoint) gives its seqs back.
/// - A transaction is all or nothing; nothing of it is visible before it
///   committed, and a call returns only after its commit did. The services
///   tell sockets about new log entries only after that return.
/// - Everything is synchronous: the services run a transaction start to end
///   on the calling thread (sends on the group-commit writer's own queue).
package protocol ChatStorage: Sendable {
    /// Runs `body` on one consistent snapshot. The body does not write.
    func read<T>(_ body: (any StorageTransaction) throws -> T) throws -> T

    /// Runs `body` in one write transaction: committed when it returns,
    /// rolled back when it throws.
    func write<T>(_ body: (any StorageTransaction) throws -> T) throws -> T

    /// One write transaction for a group of jobs, each inside a savepoint of
    /// its own: a job that throws rolls back alone (its result is the
    /// error) and the others commit together. Throws when the transaction as
    /// a whole could not commit: then nothing of the group is stored.
    func writeGroup<Job, Output>(_ jobs: [Job], _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>]

    /// `writeGroup`, first trying all jobs at once: `bulk` runs in a
    /// savepoint of its own and returns an output for each job it wrote and
    /// nil for each it left alone; if it throws, its savepoint rolls back and
    /// it wrote none. The jobs it left then run one by one, as in
    /// `writeGroup`. For a backend where each statement is a round trip; the
    /// default runs every job one by one.
    func writeGroup<Job, Output>(_ jobs: [Job], bulk: ([Job], any StorageTransaction) throws -> [Output?],
                                 _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>]

    /// `writeGroup`, topped up once the transaction may write: `more` is
    /// called once, when the backend's write lock is held, and the jobs it
    /// returns join the group (the results are `jobs`' and then theirs, in
    /// order). Where the lock is waited for (another node's commit), what
    /// arrived meanwhile goes into this commit instead of queueing for the
    /// next. `bulk`, when given, is as above.
    func writeGroup<Job, Output>(_ jobs: [Job], more: () -> [Job],
                                 bulk: (([Job], any StorageTransaction) throws -> [Output?])?,
                                 _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>]
}

extension ChatStorage {
    /// With no lock shared beyond the process, the lock is as good as held
    /// at once: the group takes `more` first.
    package func writeGroup<Job, Output>(_ jobs: [Job], more: () -> [Job],
                                         bulk: (([Job], any StorageTransaction) throws -> [Output?])?,
                                         _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        let all = jobs + more()
        guard let bulk else { return try writeGroup(all, body) }
        return try writeGroup(all, bulk: bulk, body)
    }

    package func writeGroup<Job, Output>(_ jobs: [Job], bulk: ([Job], any StorageTransaction) throws -> [Output?],
                                 _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        try writeGroup(jobs, body)
    }
}

/// One open transaction (or savepoint) and the repositories over it. A
/// transaction is used only inside the body it was passed to.
package protocol StorageTransaction {
    var accounts: any AccountRepository { get }
    var users: any UserRepository { get }
    var conversations: any ConversationRepository { get }
    var messages: any MessageRepository { get }
    var syncLog: any SyncLogRepository { get }
    var media: any MediaRepository { get }
    var signals: any SignalRepository { get }
    var groups: any GroupRepository { get }
    var favorites: any FavoriteRepository { get }
    var people: any PeopleRepository { get }
    var rooms: any RoomRepository { get }
    var usage: any UsageRepository { get }
    /// v4: devices' public keys for secret chats.
    var keys: any KeyRepository { get }
    /// Whole batches of sends at once, where the backend has them.
    var sendBatch: (any SendBatchRepository)? { get }
}

extension StorageTransaction {
    package var sendBatch: (any SendBatchRepository)? { nil }
}

/// An error of a backend that can say whether it ran out of room (the
/// request then gets `storage_full`, not `internal`).
package protocol StorageError: Error {
    var isStorageFull: Bool { get }
}

import Foundation

/// The server's services over one storage, wired together once per server.
/// Each service owns one area's rules and talks to the database only
/// through `ChatStorage`; every change runs in one transaction, and sockets
/// hear of it only after the commit (`CommitNotifier`).
public final class ServerServices: Sendable {
    let config: ServerConfig
    let storage: any ChatStorage
    let hub: PushHub
    let objects: MediaStore
    let notices: CommitNotifier
    let presence: PresenceService
    let auth: AuthService
    let syncLog: SyncLogService
    let conversations: ConversationService
    let users: UserService
    let media: MediaService
    let signals: SignalService
    let messages: MessageService
    let groups: GroupService
    let people: PeopleService
    let rooms: RoomService
    let receipts: ReceiptService
    let keys: KeyService
    let secrets: SecretService

    /// Where request handlers wait on the database (nil: Swift's cooperative pool).
    let threads: StorageThreads?
    /// The other nodes when the database is shared (nil on SQLite).
    let cluster: ClusterService?
    private let closeStorage: @Sendable () -> Void

    /// Opens the shared PostgreSQL database when `config.databaseURL` names
    /// one, else the data folder's SQLite database; and the object store.
    convenience init(config: ServerConfig) throws {
        try StorePermissions.makePrivateDirectory(config.dataDir)
        let limits = MemoryLimits()
        guard let url = config.databaseURL else {
            let storage = try SQLiteStorage.open(path: config.databasePath, logger: config.logger)
            let objects = try MediaStore(directory: config.mediaDir, secretPath: config.secretPath)
            self.init(config: config, storage: storage, objects: objects, limits: limits)
            return
        }
        guard let backend = config.databaseBackend else {
            throw ServerSetupError(description: "--database \(DatabaseURL.redacted(url)): this program keeps its data in SQLite only")
        }
        let shared = try backend.open(url: url, config: config)
        do {
            let objects = try MediaStore(directory: config.mediaDir, secretBytes: shared.signingSecret)
            self.init(config: config, storage: shared.storage, objects: objects, limits: shared.limits, bus: shared.bus,
                      close: shared.close)
        } catch {
            shared.close()
            throw error
        }
    }

    init(config: ServerConfig, storage: any ChatStorage, objects: MediaStore, limits: any SharedLimits,
         bus: (any ClusterBus)? = nil, close: @escaping @Sendable () -> Void = {}) {
        self.config = config
        self.storage = storage
        self.objects = objects
        closeStorage = close
        threads = config.storageThreads > 0 ? StorageThreads(threads: config.storageThreads) : nil
        hub = PushHub()
        notices = CommitNotifier(hub: hub, bus: bus)
        presence = PresenceService(hub: hub, storage: storage)
        syncLog = SyncLogService(storage: storage, config: config)
        keys = KeyService(storage: storage, config: config, syncLog: syncLog, notices: notices, limits: limits)
        auth = AuthService(storage: storage, config: config, limits: limits, hub: hub, syncLog: syncLog, notices: notices,
                           keys: keys, tokenCacheOpen: bus == nil)
        conversations = ConversationService(storage: storage, config: config, presence: presence, syncLog: syncLog,
                                            notices: notices)
        media = MediaService(storage: storage, objects: objects, config: config)
        users = UserService(storage: storage, conversations: conversations, media: media, syncLog: syncLog, notices: notices)
        signals = SignalService(storage: storage, config: config, conversations: conversations, syncLog: syncLog,
                                notices: notices)
        messages = MessageService(storage: storage, config: config, objects: objects, conversations: conversations,
                                  syncLog: syncLog, signals: signals, notices: notices)
        groups = GroupService(storage: storage, config: config, conversations: conversations, messages: messages,
                              media: media, syncLog: syncLog, notices: notices)
        people = PeopleService(storage: storage, config: config, syncLog: syncLog, notices: notices, conversations: conversations)
        receipts = ReceiptService(storage: storage, config: config, conversations: conversations, notices: notices)
        secrets = SecretService(storage: storage, config: config, keys: keys, conversations: conversations,
                                messages: messages, syncLog: syncLog, notices: notices)

        rooms = RoomService(storage: storage, config: config, hub: hub, messages: messages, notices: notices)
        if let bus {
            cluster = ClusterService(bus: bus, hub: hub, auth: auth, syncLog: syncLog, logger: config.logger,
                                     roomFrame: { [rooms] ref in rooms.frame(for: ref) })
        } else {
            cluster = nil
        }
        hub.wentOffline.withLock { [rooms] in $0 = OfflineHook { uid, vanished in rooms.wentOffline(uid, grace: vanished) } }
    }

    /// Starts listening to the other nodes (a cluster's node only).
    func startCluster() { cluster?.start() }

    /// Stops listening and closes the database connections.
    func shutdown() async {
        // Room frames still queued go out while the bus is up.
        notices.drain()
        await cluster?.stop()
        // Work queued off the requests (last-seen times, leaves of users who
        // went offline) ends before the database closes under it.
        auth.stop()
        rooms.stop()
        closeStorage()
        await threads?.shutdown()
    }

    /// Runs `body` on the storage threads (inline when there are none).
    func onStorageThreads<T>(_ body: () async throws -> T) async rethrows -> T {
        guard let threads else { return try await body() }
        return try await withTaskExecutorPreference(threads, operation: body)
    }

    /// Drops sync events older than the retention (or `cutoff`, in Unix
    /// milliseconds); later cursors below the newest dropped one get 410.
    public func pruneSyncLog(olderThanMs cutoff: Int? = nil) throws {
        try syncLog.prune(olderThanMs: cutoff)
    }

    /// Deletes the disappearing secret messages whose time has come (the
    /// server's own loop does it every second); returns how many.
    @discardableResult
    public func expireDueSecretMessages() throws -> Int { try secrets.sweepExpired() }
}

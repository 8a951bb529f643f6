import ChatServer
import Foundation

/// PostgreSQL as `tongban-server --database postgres://…` opens it: the
/// storage, the shared limits and the cluster's bus over one pool.
public struct PostgresBackend: DatabaseBackend {
    public init() {}

    package func open(url: String, config: ServerConfig) throws -> SharedDatabase {
        let storage = try PostgresStorage.open(url: url, logger: config.logger)
        do {
            let limits = PostgresLimits(pool: storage.pool)
            return SharedDatabase(storage: storage, signingSecret: try storage.signingSecret(), limits: limits,
                                  bus: PostgresBus(pool: storage.pool, logger: config.logger), close: { storage.close() })
        } catch {
            storage.close()
            throw error
        }
    }
}

extension ServerConfig {
    /// Opens `databaseURL` with PostgreSQL.
    public mutating func usePostgres() { databaseBackend = PostgresBackend() }
}

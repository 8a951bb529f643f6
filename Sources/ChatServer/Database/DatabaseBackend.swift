import Foundation

/// A database shared by a cluster's nodes, for `ServerConfig.databaseURL`.
/// SQLite is built in; `tongban-server` plugs in PostgreSQL
/// (ChatServerPostgres), so a program that embeds a server on SQLite (the
/// client's demo) links no database driver it never uses.
package protocol DatabaseBackend: Sendable {
    /// Connects to `url`, brings its schema up to date and hands out what
    /// the services run on.
    func open(url: String, config: ServerConfig) throws -> SharedDatabase
}

/// What a shared database gives the services.
package struct SharedDatabase: Sendable {
    package let storage: any ChatStorage
    /// The media signing secret every node shares.
    package let signingSecret: Data
    /// Login throttling and request counts every node sees.
    package let limits: any SharedLimits
    /// How the nodes hear of each other's commits, logouts and presence.
    package let bus: any ClusterBus
    /// Closes the connections (the server is stopping).
    package let close: @Sendable () -> Void

    package init(storage: any ChatStorage, signingSecret: Data, limits: any SharedLimits, bus: any ClusterBus,
                 close: @escaping @Sendable () -> Void) {
        self.storage = storage; self.signingSecret = signingSecret; self.limits = limits; self.bus = bus; self.close = close
    }
}

/// Database URLs as logs and messages show them.
package enum DatabaseURL {
    /// The URL without its password.
    package static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "***"
        return url.string ?? "postgres://…"
    }
}

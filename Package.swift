// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "tongban",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tongban", targets: ["tongban"]),
        .executable(name: "tongban-server", targets: ["tongban-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        // Value types, wire types, mapper, message kinds, localisation. Foundation only.
        .target(
            name: "ChatCore",
            // The folder inside: `Resources` is a link to the top-level
            // folder, and copying it copied the link, dangling in the bundle.
            resources: [.copy("Resources/Localization")],
            swiftSettings: strict
        ),
        // The per-user SQLite store on GRDB.
        .target(
            name: "ChatStore",
            dependencies: ["ChatCore", "ChatCrypto", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        // The client's network side: API client, push + poll sync, send queue, media cache.
        .target(
            name: "ChatSync",
            dependencies: [
                "ChatCore", "ChatStore", "ChatCrypto",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The signal quote's id, derived from its reply (PROTOCOL.md v4).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Secret chats' cryptography (PROTOCOL.md v4): X3DH, the Double Ratchet and the
        // safety number on swift-crypto, with no I/O of its own.
        .target(
            name: "ChatCrypto",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Test support: FakeChatAPI, the real server in this process (LocalServer) behind ChatSync's ChatAPI.
        // Only test targets depend on it.
        .target(
            name: "ChatTesting",
            dependencies: [
                "ChatCore", "ChatStore", "ChatSync", "ChatServer", .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // LocalServer's requests and push listeners carry a channel that is not a socket.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The seed's two view models, over the store and the sync layer.
        .target(
            name: "ChatViewModels",
            dependencies: ["ChatCore", "ChatStore", "ChatSync", "ChatMedia"],
            swiftSettings: strict
        ),
        // libvips (decode, resize, JPEG) for pictures; see Sources/CVips/cvips.c.
        .target(
            name: "CVips",
            // libvips itself is dlopen'ed on first use (see cvips.c).
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // posix_spawn that closes every other descriptor (for HelperProcess).
        .target(name: "CSpawn"),
        // External programs with an argument list and only the descriptors they are given.
        .target(name: "Spawn", dependencies: ["CSpawn"], swiftSettings: strict),
        .target(name: "ChatMedia", dependencies: ["CVips", "Spawn", "ChatCore"], swiftSettings: strict),
        // ncursesw through a shim (see ARCHITECTURE.md gotchas).
        .systemLibrary(name: "CNCurses", path: "Sources/CNCurses"),
        // mallopt, for the server's allocator tuning.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // Cell grid, widths, wrapping, keys, and the ncurses backend.
        // The terminal thread's wake-up pipe and SIGWINCH chaining (C: signal handler).
        .target(name: "CTermWake"),
        // The commit a binary was built from (`--version`); see the Makefile's buildinfo.
        // Apart from ChatCore, which the fuzz harnesses compile on their own.
        .target(name: "CBuildInfo"),
        .target(name: "Version", dependencies: ["CBuildInfo"], swiftSettings: strict),
        .target(name: "TerminalUI", dependencies: ["CNCurses", "CTermWake", "Spawn"], swiftSettings: strict),
        // The full-screen client: app state, key handling, drawing.
        .target(
            name: "TongbanTUI",
            dependencies: ["ChatCore", "ChatCrypto", "ChatStore", "ChatSync", "ChatViewModels", "TerminalUI", "ChatMedia", "Spawn"],
            swiftSettings: strict
        ),
        // The PROTOCOL.md server on Hummingbird + WebSocket, its own SQLite store.
        .target(
            name: "ChatServer",
            dependencies: [
                "ChatCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // A room's frame written once for every socket (WebSocketSession).
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The server's PostgreSQL backend (a cluster's shared database): only
        // tongban-server links it, so the client maps no database driver it never uses.
        .target(
            name: "ChatServerPostgres",
            dependencies: [
                "ChatServer", "ChatCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tongban-server",
            dependencies: [
                "ChatServer", "ChatServerPostgres", "Version",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tongban",
            dependencies: [
                "ChatCore", "ChatCrypto", "ChatStore", "ChatSync", "ChatViewModels", "ChatServer", "TongbanTUI", "TerminalUI", "ChatMedia", "Version", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tongban-bench",
            dependencies: [
                "ChatCore", "ChatCrypto", "ChatStore", "ChatSync", "CEpoll", "Spawn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "ChatCoreTests", dependencies: ["ChatCore"], swiftSettings: strict),
        .testTarget(name: "ChatCryptoTests", dependencies: ["ChatCrypto"], swiftSettings: strict),
        .testTarget(name: "ChatStoreTests", dependencies: ["ChatStore", "ChatCore", "ChatCrypto", "ChatTesting"], swiftSettings: strict),
        .testTarget(
            name: "ChatViewModelsTests",
            dependencies: ["ChatViewModels", "ChatSync", "ChatServer", "ChatStore", "ChatCore", "ChatTesting"],
            swiftSettings: strict
        ),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI"], swiftSettings: strict),
        .testTarget(name: "SpawnTests", dependencies: ["Spawn"], swiftSettings: strict),
        .testTarget(name: "ChatMediaTests", dependencies: ["ChatMedia", "ChatCore", "TerminalUI", "ChatTesting"], swiftSettings: strict),
        .testTarget(
            name: "TongbanTUITests",
            dependencies: [
                "TongbanTUI", "TerminalUI", "ChatViewModels", "ChatSync", "ChatServer", "ChatStore", "ChatCore", "ChatMedia", "ChatTesting",
            ],
            // Read from the source tree by path (make golden rewrites them there).
            exclude: ["Golden"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ChatSyncTests",
            dependencies: ["ChatSync", "ChatViewModels", "ChatServer", "ChatStore", "ChatCore", "ChatTesting",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ChatServerTests",
            dependencies: [
                "ChatServer", "ChatServerPostgres", "ChatCore", "ChatCrypto", "ChatTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                // Plans of the PostgreSQL backend's statements (SendBatchTests).
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

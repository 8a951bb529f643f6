import Foundation

/// Where Tongban keeps its files (XDG base directories).
///
/// - data: `$TONGBAN_DATA_DIR`, else `$XDG_DATA_HOME/tongban`, else
///   `~/.local/share/tongban`. Each logged-in user on each server gets
///   `users/<server>_<uid>/` (0700) with `chat.sqlite` (0600) inside.
/// - cache: `$XDG_CACHE_HOME/tongban`, else `~/.cache/tongban`; with an
///   explicit data dir, `<data dir>/cache`, so side-by-side users stay apart.
/// - config: `$XDG_CONFIG_HOME/tongban`, else `~/.config/tongban`.
public struct StorePaths: Sendable, Hashable {
    public let dataDirectory: URL
    public let cacheDirectory: URL
    public let configDirectory: URL

    public init(dataDirectory: URL, cacheDirectory: URL, configDirectory: URL) {
        self.dataDirectory = dataDirectory
        self.cacheDirectory = cacheDirectory
        self.configDirectory = configDirectory
    }

    public static func resolve(explicitDataDir: String?, environment: [String: String]) -> StorePaths {
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        func xdg(_ key: String, _ fallback: String) -> URL {
            if let v = environment[key], v.hasPrefix("/") { return URL(fileURLWithPath: v).appendingPathComponent("tongban") }
            return home.appendingPathComponent(fallback).appendingPathComponent("tongban")
        }
        let config = xdg("XDG_CONFIG_HOME", ".config")
        if let dir = explicitDataDir ?? environment["TONGBAN_DATA_DIR"], !dir.isEmpty {
            let data = URL(fileURLWithPath: dir).standardizedFileURL
            return StorePaths(dataDirectory: data, cacheDirectory: data.appendingPathComponent("cache"), configDirectory: config)
        }
        return StorePaths(dataDirectory: xdg("XDG_DATA_HOME", ".local/share"), cacheDirectory: xdg("XDG_CACHE_HOME", ".cache"),
                          configDirectory: config)
    }

    /// `users/<server>_<uid>`: one folder per user and server.
    public func userDirectory(server: String, uid: Int) -> URL {
        dataDirectory.appendingPathComponent("users").appendingPathComponent("\(StorePaths.serverSlug(server))_\(uid)")
    }

    /// `http://127.0.0.1:8080/` -> `127.0.0.1-8080`: safe as a folder name.
    public static func serverSlug(_ server: String) -> String {
        var s = server
        for prefix in ["https://", "http://"] where s.hasPrefix(prefix) { s.removeFirst(prefix.count) }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
        let slug = String(s.map { allowed.contains($0) ? $0 : "-" }).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return slug.isEmpty ? "server" : String(slug.prefix(80))
    }

    /// Creates `url` and its parents with mode 0700.
    public static func makePrivateDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }
}

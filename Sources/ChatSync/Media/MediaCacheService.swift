import ChatCore
import Foundation
import Synchronization

/// Seed §三: per-user media cache under `$XDG_CACHE_HOME/tongban/media_<uid>/`,
/// received files flat in the root, our own uploads in a per-conversation
/// folder, file name = objectKey with `/` replaced by `_`. Flash images are
/// never written to disk.
public final class MediaCacheService: Sendable {
    public let directory: URL
    let api: any ChatAPI
    private let memory = Mutex<[String: URL]>([:])
    /// v4: the key of a secret chat's blob, by objectKey (nil: stored as sent).
    private let blobKeys = Mutex<(@Sendable (String) -> (key: String, sha256: String)?)?>(nil)

    /// Where the keys of secret chats' blobs are looked up (the session's store).
    public func openSecretBlobs(with lookup: @escaping @Sendable (String) -> (key: String, sha256: String)?) {
        blobKeys.withLock { $0 = lookup }
    }

    /// Downloaded bytes as the screens want them: a secret chat's blob decrypted (and its hash checked).
    func opened(_ data: Data, objectKey: String) throws -> Data {
        guard let found = blobKeys.withLock({ $0 })?(objectKey) else { return data }
        return try SecretChannel.openBlob(data, key: found.key, sha256: found.sha256)
    }

    public init(root: URL, uid: Int, api: any ChatAPI) {
        directory = root.appendingPathComponent("media_\(uid)", isDirectory: true)
        self.api = api
    }

    /// `chat/image/2026/03/20/abc.jpg` -> `chat_image_2026_03_20_abc.jpg`,
    /// reduced to a safe base name (the key came over the network).
    public static func fileName(for objectKey: String) -> String {
        SafeFileName.base(objectKey.replacingOccurrences(of: "/", with: "_"), fallback: "object")
    }

    /// The cached file of `objectKey`: memory first, then the root, then
    /// every conversation folder.
    public func localURL(for objectKey: String) -> URL? {
        if let hit = memory.withLock({ $0[objectKey] }), FileManager.default.fileExists(atPath: hit.path) { return hit }
        let name = Self.fileName(for: objectKey)
        let fm = FileManager.default
        var candidates = [directory.appendingPathComponent(name)]
        if let subs = try? fm.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.isDirectoryKey]) {
            candidates += subs.filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
                .map { $0.appendingPathComponent(name) }
        }
        guard let found = candidates.first(where: { fm.fileExists(atPath: $0.path) }) else { return nil }
        memory.withLock { $0[objectKey] = found }
        return found
    }

    /// Writes bytes for `objectKey` (into the conversation's folder for our
    /// own uploads). Folders 0700, files 0600.
    @discardableResult
    public func save(_ data: Data, for objectKey: String, conversationId: String? = nil) throws -> URL {
        var dir = directory
        if let conversationId { dir = dir.appendingPathComponent(SafeFileName.base(conversationId), isDirectory: true) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = dir.appendingPathComponent(Self.fileName(for: objectKey))
        let old = umask(0o077)
        defer { umask(old) }
        try data.write(to: url, options: .atomic)
        memory.withLock { $0[objectKey] = url }
        return url
    }

    /// Deletes the cached copy of `objectKey` (a disappearing message's), wherever it is.
    public func remove(objectKey: String) {
        while let url = localURL(for: objectKey) {
            memory.withLock { _ = $0.removeValue(forKey: objectKey) }
            guard (try? FileManager.default.removeItem(at: url)) != nil else { return }
        }
    }

    /// A private file for bytes waiting to be uploaded (kept across restarts
    /// because the outbox points at it).
    public func pendingUploadFile(_ data: Data, ext: String) throws -> URL {
        let dir = directory.appendingPathComponent("pending", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = dir.appendingPathComponent(UUID().uuidString.lowercased() + "." + SafeFileName.base(ext))
        let old = umask(0o077)
        defer { umask(old) }
        try data.write(to: url, options: .atomic)
        return url
    }

    /// Bytes of a signed URL, in memory only (flash images).
    public func fetchUncached(objectKey: String) async throws -> Data {
        guard let url = try await api.sign([objectKey]).urls[objectKey] else {
            throw APIError.server(status: 404, code: .notFound, rawCode: "not_found", message: "media is gone", retryAfter: nil)
        }
        return try opened(try await api.download(url), objectKey: objectKey)
    }

    /// Downloads and caches; re-signs first when `url` is empty or expired.
    /// Returns the fresh URL for the caller to write back into the bubble.
    @discardableResult
    public func prefetch(url: String, expireAt: Int, objectKey: String, now: Date = Date()) async throws -> String {
        var fresh = api.ownMediaURL(from: url, objectKey: objectKey) ?? ""
        if fresh.isEmpty || (expireAt > 0 && Double(expireAt) <= now.timeIntervalSince1970) {
            guard let signed = try await api.sign([objectKey]).urls[objectKey] else {
                throw APIError.server(status: 404, code: .notFound, rawCode: "not_found", message: "media is gone", retryAfter: nil)
            }
            fresh = api.ownMediaURL(from: signed, objectKey: objectKey) ?? signed
        }
        if localURL(for: objectKey) == nil {
            try save(try opened(try await api.download(fresh), objectKey: objectKey), for: objectKey)
        }
        return fresh
    }

    /// The seed's three-way strategy for a batch of messages: cached ->
    /// `file://`; missing and expired (or no signed URL) -> re-signed in ONE
    /// `/media/sign` call; missing and still valid -> left as is, or moved
    /// onto our own server when the payload named another host. Flash
    /// images are resolved but never cached.
    public func resolveMediaURLs(for messages: [ChatMessage], now: Date = Date()) async throws -> [String: String] {
        var result: [String: String] = [:]
        var needSign: [String] = []
        for m in messages where !m.isRecalled && !m.isDestroyed {
            let expired = m.isURLExpired(now: now)
            var pairs: [(String, String)] = []
            if let key = m.objectKey { pairs.append((key, m.imageUrl ?? "")) }
            if let keys = m.multiObjectKeys {
                // Write back per index through a copy (seed §三 pitfall).
                let urls = m.multiImageUrls ?? []
                for (i, k) in keys.enumerated() { pairs.append((k, i < urls.count ? urls[i] : "")) }
            }
            for (key, url) in pairs {
                if !m.isFlash, let local = localURL(for: key) {
                    result[key] = local.absoluteString
                } else if !expired, let own = api.ownMediaURL(from: url, objectKey: key) {
                    if own != url { result[key] = own }
                } else if !needSign.contains(key) {
                    needSign.append(key)
                }
            }
        }
        if !needSign.isEmpty {
            for chunk in stride(from: 0, to: needSign.count, by: 100) {
                let signed = try await api.sign(Array(needSign[chunk..<min(chunk + 100, needSign.count)]))
                for (key, url) in signed.urls { result[key] = api.ownMediaURL(from: url, objectKey: key) ?? url }
            }
        }
        return result
    }
}

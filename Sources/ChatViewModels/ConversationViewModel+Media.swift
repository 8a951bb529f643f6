import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Pictures, voice and files: URLs re-signed, objects fetched into the
/// cache (never a flash image's bytes), uploads prepared.
extension ConversationViewModel {
    // MARK: - Media URLs

    /// Re-signs expired URLs in one call and prefetches (never flash images).
    public func refreshMediaURLs() async {
        let media = messages.filter { $0.objectKey != nil || $0.multiObjectKeys != nil }
        guard !media.isEmpty else { return }
        do {
            let fresh = try await session.media.resolveMediaURLs(for: media)
            if Task.isCancelled { return }
            resolvedURLs.merge(fresh) { _, new in new }
            reload()
            changed()
            for m in media where !m.isFlash && !m.isRecalled {
                for key in (m.objectKey.map { [$0] } ?? []) + (m.multiObjectKeys ?? []) {
                    guard session.media.localURL(for: key) == nil, let url = resolvedURLs[key] ?? m.imageUrl, !url.isEmpty,
                          url.hasPrefix("http") else { continue }
                    if Task.isCancelled { return }
                    // Each picture shows as soon as it is in the cache.
                    if (try? await session.media.prefetch(url: url, expireAt: 0, objectKey: key)) != nil {
                        reload()
                        changed()
                    }
                }
            }
        } catch {
            errorMessage = describe(error)
        }
        reload()
        changed()
    }

    /// Whether an object is in the local cache.
    public func isCached(_ key: String) -> Bool { cachedURL(key) != nil }

    /// The cached file of an object, if it is there.
    public func cachedURL(_ key: String) -> URL? { session.media.localURL(for: key) }

    /// The cached file of one object key, fetched (re-signed when expired)
    /// first if needed.
    public func localFile(key: String, url: String, expireAt: Int) async throws -> URL {
        if let cached = session.media.localURL(for: key) { return cached }
        _ = try await session.media.prefetch(url: url, expireAt: expireAt, objectKey: key)
        guard let file = session.media.localURL(for: key) else { throw MediaUnavailable(key: key) }
        return file
    }

    /// The cached file of a message's (not flash) media.
    public func localFile(_ m: ChatMessage) async throws -> URL {
        guard let key = m.objectKey, !m.isFlash else { throw MediaUnavailable(key: m.objectKey ?? "") }
        return try await localFile(key: key, url: m.imageUrl ?? "", expireAt: m.urlExpireAt ?? 0)
    }

    /// A flash image's bytes, into memory only.
    public func flashBytes(_ m: ChatMessage) async throws -> Data {
        guard let key = m.objectKey else { throw MediaUnavailable(key: "") }
        return try await session.media.fetchUncached(objectKey: key)
    }

    /// A private file for something about to be uploaded (a recording, a
    /// picture prepared for sending).
    public func newUploadFile(_ data: Data = Data(), ext: String) throws -> URL {
        try session.media.pendingUploadFile(data, ext: ext)
    }
}

/// A media object that could not be brought into the cache.
public struct MediaUnavailable: Error, CustomStringConvertible {
    public let key: String
    public var description: String { "media \(key) is not available" }
}

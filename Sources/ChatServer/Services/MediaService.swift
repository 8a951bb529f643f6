import ChatCore
import Foundation

/// Uploads, signed URLs, and the objects those URLs fetch.
final class MediaService: Sendable {
    let storage: any ChatStorage
    let objects: MediaStore
    let config: ServerConfig

    init(storage: any ChatStorage, objects: MediaStore, config: ServerConfig) {
        self.storage = storage
        self.objects = objects
        self.config = config
    }

    func upload(caller: Int, kind: String, declaredType: String, bytes: Data) throws -> UploadResponse {
        let quotas = Quotas(config: config)
        try storage.read { tx in try quotas.check(.uploadBytes, amount: bytes.count, by: caller, in: tx) }
        let key = try objects.store(kind: kind, declaredType: declaredType, bytes: bytes, maxBytes: config.maxMediaBytes)
        // A file is served as bytes, whatever type its uploader declared.
        let servedType = MediaStore.isFileKey(key) ? MediaStore.fileType : declaredType
        do {
            let now = config.clock.nowMs()
            try storage.write { tx in
                try quotas.take(.uploadBytes, amount: bytes.count, by: caller, in: tx)
                try tx.media.insert(objectKey: key, uploader: caller, contentType: servedType, size: bytes.count, createdAt: now)
            }
        } catch {
            objects.delete(key: key)  // no file without its row (a full disk, say)
            throw error
        }
        return UploadResponse(objectKey: key, size: bytes.count)
    }

    /// Signed URLs for the keys the caller may read, and for anyone's
    /// picture (PROTOCOL.md v3: a profile's or group's avatar); the others are left out.
    func sign(caller: Int, keys: [String], baseURL: String) throws -> SignResponse {
        guard keys.count <= 100 else { throw APIFailure.invalid("at most 100 object_keys per call") }
        let exp = config.clock.nowMs() / 1000 + config.signedURLSeconds
        let readable = try storage.read { tx in try keys.filter { try tx.media.mayRead($0, uid: caller) || tx.users.isAvatar($0) } }
        var urls: [String: String] = [:]
        for key in readable { urls[key] = objects.signedURL(base: baseURL, key: key, exp: exp) }
        return SignResponse(urls: urls, expireAt: exp)
    }

    /// A picture `caller` may make their own or their group's: "" (none),
    /// or a `chat_image` they uploaded, small enough for everyone who draws
    /// it (PROTOCOL.md v4: at most 512 KiB, 413; 1024×1024 pixels, 400).
    func checkAvatar(_ key: String, caller: Int, in tx: any StorageTransaction) throws -> String {
        guard !key.isEmpty else { return "" }
        guard key.hasPrefix("chat/image/"), MediaStore.isValidKey(key) else {
            throw APIFailure.invalid("avatar must be the objectKey of an uploaded chat_image, or empty")
        }
        guard try tx.media.uploader(of: key) == caller else { throw APIFailure.forbidden("avatar must be a picture you uploaded") }
        let limits = config.limits
        guard let size = objects.byteCount(key: key) else { throw APIFailure.notFound("no such object") }
        guard size <= limits.avatarMaxBytes else {
            throw APIFailure(.tooLarge, "an avatar must be at most \(limits.avatarMaxBytes / 1024) KiB; send 256×256")
        }
        guard let data = objects.read(key: key), let probe = MediaProbe.probe(data),
              let w = probe.width, let h = probe.height, w <= limits.avatarMaxPixels, h <= limits.avatarMaxPixels else {
            throw APIFailure.invalid("an avatar must be at most \(limits.avatarMaxPixels)×\(limits.avatarMaxPixels) pixels")
        }
        return key
    }

    /// Bytes and content type of a signed object, or the reason not.
    func fetchObject(key: String, exp: String?, sig: String?) throws -> (Data, String) {
        guard MediaStore.isValidKey(key) else { throw APIFailure.invalid("bad object key") }
        guard let exp, let expValue = Int(exp), let sig, objects.verify(key: key, exp: expValue, sig: sig) else {
            throw APIFailure.forbidden("bad signature")
        }
        guard expValue >= config.clock.nowMs() / 1000 else { throw APIFailure.forbidden("the link has expired") }
        guard let type = try storage.read({ tx in try tx.media.contentType(of: key) }),
              let data = objects.read(key: key) else { throw APIFailure.notFound("no such object") }
        return (data, type)
    }
}

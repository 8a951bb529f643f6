import ChatCore
import Crypto
import Foundation

/// Uploaded objects on disk under `media/`, their magic-number check and
/// the HMAC that signs their URLs.
struct MediaStore: Sendable {
    let directory: URL
    /// The HMAC key's bytes (kept as Data: SymmetricKey is not Sendable).
    let secretBytes: Data
    var secret: SymmetricKey { SymmetricKey(data: secretBytes) }

    static let imageTypes = MediaType.imageExtensions
    static let audioTypes = ["audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/ogg": "ogg", "audio/wav": "wav"]

    /// A store whose signing secret is given (shared by a cluster's nodes).
    init(directory: URL, secretBytes: Data) throws {
        self.directory = directory
        try StorePermissions.makePrivateDirectory(directory.path)
        self.secretBytes = secretBytes
    }

    init(directory: URL, secretPath: String) throws {
        self.directory = directory
        try StorePermissions.makePrivateDirectory(directory.path)
        if let data = FileManager.default.contents(atPath: secretPath), data.count >= 32 {
            secretBytes = data
        } else {
            let key = SymmetricKey(size: .bits256)
            let data = key.withUnsafeBytes { Data($0) }
            guard FileManager.default.createFile(atPath: secretPath, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw APIFailure.invalid("cannot write the signing secret at \(secretPath)")
            }
            secretBytes = data
        }
    }

    /// `chat/image/2026/11/22/<uuid>.jpg` (`chat/file/.../<uuid>.bin` for
    /// files): nothing else is accepted, so a key can never leave the media folder.
    static var keyPattern: Regex<(Substring, Substring, Substring)> { /^chat\/(image|audio|file|blob)\/[0-9]{4}\/[0-9]{2}\/[0-9]{2}\/[0-9a-f-]{36}\.(jpg|png|gif|webp|mp3|m4a|ogg|wav|bin)$/ }

    /// Files (`chat_file`) are any bytes: always served as a download,
    /// never as something a browser would render.
    static let fileType = "application/octet-stream"
    static func isFileKey(_ key: String) -> Bool { key.hasPrefix("chat/file/") || key.hasPrefix("chat/blob/") }

    static func isValidKey(_ key: String) -> Bool { key.wholeMatch(of: keyPattern) != nil }

    /// Checks the declared type, the size and the bytes; writes the object.
    func store(kind: String, declaredType: String, bytes: Data, maxBytes: Int) throws -> String {
        let type = declaredType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let table: [String: String]
        let folder: String
        switch kind {
        case "chat_image": table = Self.imageTypes; folder = "image"
        case "chat_audio": table = Self.audioTypes; folder = "audio"
        case "chat_file": table = [:]; folder = "file"
        // v4: a secret chat's encrypted bytes, which only its two people can open.
        case "chat_blob": table = [:]; folder = "blob"
        default: throw APIFailure.invalid("type must be chat_image, chat_audio, chat_file or chat_blob")
        }
        let ext: String
        if folder == "file" || folder == "blob" {
            ext = "bin"
        } else {
            guard let known = table[type] else {
                throw APIFailure(.unsupportedMedia, "Content-Type \(type.prefix(60)) is not allowed for \(kind)")
            }
            ext = known
        }
        guard bytes.count <= maxBytes else { throw APIFailure(.tooLarge, "media is larger than \(maxBytes) bytes") }
        guard !bytes.isEmpty else { throw APIFailure.invalid("empty upload") }
        guard folder == "file" || folder == "blob" || Self.matches(type: type, bytes: bytes) else {
            throw APIFailure(.unsupportedMedia, "the bytes are not \(type)")
        }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let d = cal.dateComponents([.year, .month, .day], from: Date())
        let key = String(format: "chat/%@/%04d/%02d/%02d/%@.%@", folder, d.year!, d.month!, d.day!,
                         UUID().uuidString.lowercased(), ext)
        let url = directory.appendingPathComponent(key)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // Objects are the users' files: readable by the server's user only.
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: url)  // a full disk leaves no partial object
            throw error
        }
        return key
    }

    func read(key: String) -> Data? {
        guard Self.isValidKey(key) else { return nil }
        return FileManager.default.contents(atPath: directory.appendingPathComponent(key).path)
    }

    /// The object's size on disk; nil when there is none.
    func byteCount(key: String) -> Int? {
        guard Self.isValidKey(key),
              let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(key).path)
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    func delete(key: String) {
        guard Self.isValidKey(key) else { return }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(key))
    }

    func signature(key: String, exp: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data((key + "\n" + String(exp)).utf8), using: secret)
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    func signedURL(base: String, key: String, exp: Int) -> String {
        "\(base)/media/object/\(key)?exp=\(exp)&sig=\(signature(key: key, exp: exp))"
    }

    func verify(key: String, exp: Int, sig: String) -> Bool {
        let expected = Data(signature(key: key, exp: exp).utf8)
        return Credentials.constantTimeEqual(expected, Data(sig.lowercased().utf8))
    }

    /// Magic numbers of the accepted types.
    static func matches(type: String, bytes: Data) -> Bool {
        let b = [UInt8](bytes.prefix(16))
        func starts(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + sig.count && Array(b[offset..<offset + sig.count]) == sig
        }
        switch type {
        case "image/jpeg": return starts([0xFF, 0xD8, 0xFF])
        case "image/png": return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case "image/gif": return starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8))
        case "image/webp": return starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)
        case "audio/wav": return starts(Array("RIFF".utf8)) && starts(Array("WAVE".utf8), at: 8)
        case "audio/ogg": return starts(Array("OggS".utf8))
        case "audio/mp4": return starts(Array("ftyp".utf8), at: 4)
        case "audio/mpeg":
            return starts(Array("ID3".utf8)) || (b.count >= 2 && b[0] == 0xFF && (b[1] & 0xE0) == 0xE0)
        default: return false
        }
    }
}

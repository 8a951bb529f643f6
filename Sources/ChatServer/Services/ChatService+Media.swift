import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Media

    func mayRead(key: String, uid: Int, db: Database) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM media m WHERE m.objectKey = ? AND m.destroyed = 0 AND (m.uploaderUid = ? OR EXISTS (
                SELECT 1 FROM media_grant g JOIN member mb ON mb.conversationId = g.conversationId
                WHERE g.objectKey = m.objectKey AND mb.uid = ?))
            """), arguments: [key, uid, uid]) != nil
    }

    public func upload(caller: Int, kind: String, declaredType: String, bytes: Data) throws -> UploadResponse {
        let key = try media.store(kind: kind, declaredType: declaredType, bytes: bytes, maxBytes: config.maxMediaBytes)
        // A file is served as bytes, whatever type its uploader declared.
        let servedType = MediaStore.isFileKey(key) ? MediaStore.fileType : declaredType
        do {
            try db.write { db in
                try db.cachedStatement(sql: "INSERT INTO media(objectKey, uploaderUid, contentType, size, createdAt) VALUES (?, ?, ?, ?, ?)").execute(arguments: [key, caller, servedType, bytes.count, nowMs()])
            }
        } catch {
            media.delete(key: key)  // no file without its row (a full disk, say)
            throw error
        }
        return UploadResponse(objectKey: key, size: bytes.count)
    }

    public func sign(caller: Int, keys: [String], baseURL: String) throws -> SignResponse {
        guard keys.count <= 100 else { throw APIFailure.invalid("at most 100 object_keys per call") }
        let exp = nowS() + config.signedURLSeconds
        let readable = try db.read { db in try keys.filter { try self.mayRead(key: $0, uid: caller, db: db) } }
        var urls: [String: String] = [:]
        for key in readable { urls[key] = media.signedURL(base: baseURL, key: key, exp: exp) }
        return SignResponse(urls: urls, expireAt: exp)
    }

    /// Bytes and content type of a signed object, or the reason not.
    public func fetchObject(key: String, exp: String?, sig: String?) throws -> (Data, String) {
        guard MediaStore.isValidKey(key) else { throw APIFailure.invalid("bad object key") }
        guard let exp, let expValue = Int(exp), let sig, media.verify(key: key, exp: expValue, sig: sig) else {
            throw APIFailure.forbidden("bad signature")
        }
        guard expValue >= nowS() else { throw APIFailure.forbidden("the link has expired") }
        guard let type = try db.read({ db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT contentType FROM media WHERE objectKey = ? AND destroyed = 0"), arguments: [key])
        }), let data = media.read(key: key) else { throw APIFailure.notFound("no such object") }
        return (data, type)
    }
}

/// Uploaded objects (their bytes are in `MediaStore`) and the conversations
/// they were sent in, which grant their members reading.
package protocol MediaRepository {
    func insert(objectKey: String, uploader: Int, contentType: String, size: Int, createdAt: Int) throws
    /// Whether `uid` uploaded the object or is in a conversation it was sent
    /// in; never once it was destroyed.
    func mayRead(_ key: String, uid: Int) throws -> Bool
    /// Who uploaded the object; nil when unknown or destroyed.
    func uploader(of key: String) throws -> Int?
    /// The type the object is served as; nil when unknown or destroyed.
    func contentType(of key: String) throws -> String?
    /// Records that the object was sent in a message; nothing if recorded.
    func grant(_ key: String, conversationId: String, messageId: Int64) throws
    func revokeGrants(messageId: Int64) throws
    func markDestroyed(_ key: String) throws
}

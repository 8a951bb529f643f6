/// Uploaded objects (their bytes are in `MediaStore`) and the conversations
/// they were sent in, which grant their members reading.
package protocol MediaRepository {
    func insert(objectKey: String, uploader: Int, contentType: String, size: Int, createdAt: Int) throws
    /// Whether `uid` uploaded the object, or was a member of a conversation
    /// it was sent in when it was sent there (PROTOCOL.md v4: spans), or is
    /// present in a room it was sent in, or kept it as a favourite; never
    /// once it was destroyed.
    func mayRead(_ key: String, uid: Int) throws -> Bool
    /// Who uploaded the object; nil when unknown or destroyed.
    func uploader(of key: String) throws -> Int?
    /// The type the object is served as; nil when unknown or destroyed.
    func contentType(of key: String) throws -> String?
    /// Records that the object was sent in a message; nothing if recorded.
    func grant(_ key: String, conversationId: String, messageId: Int64) throws
    /// The first message the object was sent in (still granted); nil when none.
    func firstMessage(naming key: String) throws -> Int64?
    func revokeGrants(messageId: Int64) throws
    func markDestroyed(_ key: String) throws
}

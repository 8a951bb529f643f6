/// A group's own fields; its members are rows of the conversation `sg_<gid>`.
struct GroupRow: Codable, Sendable {
    var gid: Int
    var name: String
    /// nil once dissolved (the name is free again).
    var uniqueName: String?
    var notice: String
    var ownerUid: Int
    var joinable: Bool
    var createdAt: Int
    var dissolved: Bool
    /// v3: the group's picture, an objectKey or "".
    var avatar: String = ""
}

/// Groups (PROTOCOL.md "Groups").
protocol GroupRepository {
    /// Stores a new group; returns its gid.
    func insert(name: String, uniqueName: String, notice: String, owner: Int, joinable: Bool, createdAt: Int) throws -> Int
    func group(_ gid: Int) throws -> GroupRow?
    func group(uniqueName: String) throws -> GroupRow?
    func update(_ group: GroupRow) throws
}

/// A group's own fields; its members are rows of the conversation `sg_<gid>`.
package struct GroupRow: Codable, Sendable {
    package var gid: Int
    package var name: String
    /// nil once dissolved (the name is free again).
    package var uniqueName: String?
    package var notice: String
    package var ownerUid: Int
    package var joinable: Bool
    package var createdAt: Int
    package var dissolved: Bool
    /// v3: the group's picture, an objectKey or "".
    package var avatar: String = ""

    package init(gid: Int, name: String, uniqueName: String?, notice: String, ownerUid: Int, joinable: Bool, createdAt: Int, dissolved: Bool, avatar: String = "") {
        self.gid = gid; self.name = name; self.uniqueName = uniqueName; self.notice = notice; self.ownerUid = ownerUid; self.joinable = joinable; self.createdAt = createdAt; self.dissolved = dissolved; self.avatar = avatar
    }
}

/// Groups (PROTOCOL.md "Groups").
package protocol GroupRepository {
    /// Stores a new group; returns its gid.
    func insert(name: String, uniqueName: String, notice: String, owner: Int, joinable: Bool, createdAt: Int) throws -> Int
    func group(_ gid: Int) throws -> GroupRow?
    func group(uniqueName: String) throws -> GroupRow?
    func update(_ group: GroupRow) throws
}

/// A room's own fields; its messages are those of the conversation `sr_<rid>`.
package struct RoomRow: Sendable {
    package var rid: Int
    package var name: String
    /// nil once dropped (the name is free again).
    package var uniqueName: String?
    package var topic: String
    package var ownerUid: Int
    package var createdAt: Int
    package var dropped: Bool

    package init(rid: Int, name: String, uniqueName: String?, topic: String, ownerUid: Int, createdAt: Int, dropped: Bool) {
        self.rid = rid; self.name = name; self.uniqueName = uniqueName; self.topic = topic; self.ownerUid = ownerUid
        self.createdAt = createdAt; self.dropped = dropped
    }
}

/// Rooms (PROTOCOL.md v3 "Rooms"): who is present, who is banned.
package protocol RoomRepository {
    /// Stores a new room; returns its rid.
    func insert(name: String, uniqueName: String, topic: String, owner: Int, createdAt: Int) throws -> Int
    func room(_ rid: Int) throws -> RoomRow?
    func room(uniqueName: String) throws -> RoomRow?
    func update(_ room: RoomRow) throws
    /// Rooms not dropped whose name or unique name contains `query` (any
    /// case; `%`, `_` and `\` match only themselves), most present first,
    /// with how many are present.
    func list(query: String, limit: Int) throws -> [(room: RoomRow, present: Int)]
    /// Makes `uid` present (and remembers the visit, `recent`); false if they were already.
    func enter(_ rid: Int, uid: Int, at: Int) throws -> Bool
    /// Rooms not dropped that `uid` owns or entered at or after `since`
    /// (Unix ms), the latest owned or entered first, at most `limit`.
    func recent(of uid: Int, since: Int, limit: Int) throws -> [RoomRow]
    /// Makes `uid` absent; false if they were not present.
    func leave(_ rid: Int, uid: Int) throws -> Bool
    /// Who is present, earliest entered first.
    func present(_ rid: Int) throws -> [Int]
    func presentCount(_ rid: Int) throws -> Int
    func isPresent(_ rid: Int, uid: Int) throws -> Bool
    /// The rooms `uid` is present in.
    func rooms(of uid: Int) throws -> [Int]
    /// Everyone present in some room.
    func presentAnywhere() throws -> [Int]
    func ban(_ rid: Int, uid: Int) throws
    /// False if `uid` was not banned.
    func unban(_ rid: Int, uid: Int) throws -> Bool
    func isBanned(_ rid: Int, uid: Int) throws -> Bool
    func bans(_ rid: Int) throws -> [Int]
    /// Nobody is present anywhere (a single node starting: every socket closed with it).
    func clearPresence() throws
}

/// LIKE patterns from user input: `%`, `_` and `\` match only themselves
/// (with `ESCAPE '\'`).
package enum LikePattern {
    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

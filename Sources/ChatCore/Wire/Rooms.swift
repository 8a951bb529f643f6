// Room bodies of PROTOCOL.md v3 ("Rooms"), field names as on the wire.

/// A live room: members only while they are there (seed 001 §2, §7-§9).
public struct RoomInfo: Codable, Sendable, Hashable {
    public var roomId: Int
    public var conversationId: String
    public var name: String
    public var uniqueName: String
    public var topic: String
    /// The owner's imUid.
    public var ownerId: String
    public var presentCount: Int
    /// Unix milliseconds.
    public var createdAt: Int

    public init(roomId: Int, name: String, uniqueName: String, topic: String = "", ownerId: String, presentCount: Int,
                createdAt: Int = 0) {
        self.roomId = roomId; self.conversationId = ConversationIDHelper.room(roomId); self.name = name
        self.uniqueName = uniqueName; self.topic = topic; self.ownerId = ownerId; self.presentCount = presentCount
        self.createdAt = createdAt
    }

    /// As synthesised, with the count held to range and the conversation id
    /// checked against the rid (a client files the room under it).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        roomId = try c.decode(Int.self, forKey: .roomId)
        conversationId = try c.decode(String.self, forKey: .conversationId)
        guard roomId > 0, conversationId == ConversationIDHelper.room(roomId) else {
            throw DecodingError.dataCorruptedError(forKey: .conversationId, in: c, debugDescription: "conversationId does not match roomId")
        }
        name = try c.decode(String.self, forKey: .name)
        uniqueName = try c.decode(String.self, forKey: .uniqueName)
        topic = try c.decodeIfPresent(String.self, forKey: .topic) ?? ""
        ownerId = try c.decode(String.self, forKey: .ownerId)
        presentCount = WireRange.count(try c.decode(Int.self, forKey: .presentCount))
        createdAt = try c.decodeIfPresent(Int.self, forKey: .createdAt) ?? 0
    }
}

/// The rules of a room's names and topic.
public enum RoomRules {
    public static let topicMaxLength = 300
    /// Messages `/room/enter` answers with.
    public static let enterMessages = 50
}

public struct CreateRoomRequest: Codable, Sendable {
    public var name: String
    public var uniqueName: String
    public var topic: String?
    enum CodingKeys: String, CodingKey { case name, uniqueName = "unique_name", topic }
    public init(name: String, uniqueName: String, topic: String? = nil) {
        self.name = name; self.uniqueName = uniqueName; self.topic = topic
    }
}

public struct EnterRoomRequest: Codable, Sendable {
    public var uniqueName: String
    enum CodingKeys: String, CodingKey { case uniqueName = "unique_name" }
    public init(uniqueName: String) { self.uniqueName = uniqueName }
}

public struct RoomIdRequest: Codable, Sendable {
    public var roomId: Int
    enum CodingKeys: String, CodingKey { case roomId = "room_id" }
    public init(roomId: Int) { self.roomId = roomId }
}

public struct UpdateRoomRequest: Codable, Sendable {
    public var roomId: Int
    public var name: String?
    public var topic: String?
    enum CodingKeys: String, CodingKey { case roomId = "room_id", name, topic }
    public init(roomId: Int, name: String? = nil, topic: String? = nil) { self.roomId = roomId; self.name = name; self.topic = topic }
}

public struct RoomKickRequest: Codable, Sendable {
    public var roomId: Int
    public var userId: Int
    public var ban: Bool?
    enum CodingKeys: String, CodingKey { case roomId = "room_id", userId = "user_id", ban }
    public init(roomId: Int, userId: Int, ban: Bool? = nil) { self.roomId = roomId; self.userId = userId; self.ban = ban }
}

public struct RoomUserRequest: Codable, Sendable {
    public var roomId: Int
    public var userId: Int
    enum CodingKeys: String, CodingKey { case roomId = "room_id", userId = "user_id" }
    public init(roomId: Int, userId: Int) { self.roomId = roomId; self.userId = userId }
}

/// `POST /room/enter`'s answer: the room, who is here, the newest messages (oldest first).
public struct EnterRoomResponse: Codable, Sendable {
    public var room: RoomInfo
    public var present: [UserBasicInfo]
    public var messages: [WireMessage]
    public init(room: RoomInfo, present: [UserBasicInfo], messages: [WireMessage]) {
        self.room = room; self.present = present; self.messages = messages
    }
}

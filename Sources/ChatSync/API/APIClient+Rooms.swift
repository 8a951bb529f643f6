import ChatCore

/// Rooms (PROTOCOL.md v3 "Rooms").
extension APIClient {
    public func createRoom(_ request: CreateRoomRequest) async throws -> RoomInfo {
        try await json(RoomInfo.self, .POST, "/room/create", body: request)
    }
    public func rooms(query: String, limit: Int) async throws -> [RoomInfo] {
        try await json([RoomInfo].self, .GET, "/room/list?q=\(Self.query(query))&limit=\(limit)")
    }
    public func lookupRoom(uniqueName: String) async throws -> RoomInfo {
        try await json(RoomInfo.self, .GET, "/room/lookup?unique_name=\(Self.query(uniqueName))")
    }
    public func enterRoom(uniqueName: String) async throws -> EnterRoomResponse {
        try await json(EnterRoomResponse.self, .POST, "/room/enter", body: EnterRoomRequest(uniqueName: uniqueName))
    }
    public func leaveRoom(roomId: Int) async throws {
        try await noContent(.POST, "/room/leave", body: RoomIdRequest(roomId: roomId))
    }
    public func roomPresent(roomId: Int) async throws -> [UserBasicInfo] {
        try await json([UserBasicInfo].self, .GET, "/room/present?room_id=\(roomId)")
    }
    public func updateRoom(_ request: UpdateRoomRequest) async throws -> RoomInfo {
        try await json(RoomInfo.self, .POST, "/room/update", body: request)
    }
    public func kickFromRoom(roomId: Int, userId: Int, ban: Bool) async throws {
        try await noContent(.POST, "/room/kick", body: RoomKickRequest(roomId: roomId, userId: userId, ban: ban))
    }
    public func unbanFromRoom(roomId: Int, userId: Int) async throws {
        try await noContent(.POST, "/room/unban", body: RoomUserRequest(roomId: roomId, userId: userId))
    }
    public func roomBans(roomId: Int) async throws -> [UserBasicInfo] {
        try await json([UserBasicInfo].self, .GET, "/room/bans?room_id=\(roomId)")
    }
    public func dropRoom(roomId: Int) async throws {
        try await noContent(.POST, "/room/drop", body: RoomIdRequest(roomId: roomId))
    }
}

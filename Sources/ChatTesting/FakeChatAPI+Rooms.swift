import ChatCore
import ChatSync

/// Rooms (PROTOCOL.md v3), forwarded to the server like every other call.
extension FakeChatAPI {
    public func createRoom(_ request: CreateRoomRequest) async throws -> RoomInfo {
        try await call(.createRoom) { try await $0.createRoom(request) }
    }
    public func rooms(query: String, limit: Int) async throws -> [RoomInfo] {
        try await call(.rooms) { try await $0.rooms(query: query, limit: limit) }
    }
    public func lookupRoom(uniqueName: String) async throws -> RoomInfo {
        try await call(.lookupRoom) { try await $0.lookupRoom(uniqueName: uniqueName) }
    }
    public func enterRoom(uniqueName: String) async throws -> EnterRoomResponse {
        try await call(.enterRoom) { try await $0.enterRoom(uniqueName: uniqueName) }
    }
    public func leaveRoom(roomId: Int) async throws { try await call(.leaveRoom) { try await $0.leaveRoom(roomId: roomId) } }
    public func roomPresent(roomId: Int) async throws -> [UserBasicInfo] {
        try await call(.roomPresent) { try await $0.roomPresent(roomId: roomId) }
    }
    public func updateRoom(_ request: UpdateRoomRequest) async throws -> RoomInfo {
        try await call(.updateRoom) { try await $0.updateRoom(request) }
    }
    public func kickFromRoom(roomId: Int, userId: Int, ban: Bool) async throws {
        try await call(.kickFromRoom) { try await $0.kickFromRoom(roomId: roomId, userId: userId, ban: ban) }
    }
    public func unbanFromRoom(roomId: Int, userId: Int) async throws {
        try await call(.unbanFromRoom) { try await $0.unbanFromRoom(roomId: roomId, userId: userId) }
    }
    public func roomBans(roomId: Int) async throws -> [UserBasicInfo] {
        try await call(.roomBans) { try await $0.roomBans(roomId: roomId) }
    }
    public func dropRoom(roomId: Int) async throws { try await call(.dropRoom) { try await $0.dropRoom(roomId: roomId) } }
}

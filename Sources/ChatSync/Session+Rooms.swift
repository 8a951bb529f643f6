import ChatCore
import Foundation

/// Rooms (PROTOCOL.md v3): live rooms a user is in while they are there.
/// Nothing of a room goes into the store: its messages come whole over the
/// socket (`SyncUpdate.room`) and from history while one is present.
extension Session {
    /// Starts the sync engine if it is not running and waits until its
    /// socket is up: creating and entering a room want the user online.
    public func comeOnline(timeout: Duration = .seconds(10)) async -> Bool {
        if sync.state == .online { return true }
        let (states, continuation) = AsyncStream<Bool>.makeStream()
        let id = sync.observe { update in
            if case .connection(.online) = update { continuation.yield(true) }
        }
        defer { sync.removeObserver(id) }
        sync.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.yield(false)
        }
        defer { timer.cancel() }
        if sync.state == .online { return true }
        for await online in states { return online }
        return false
    }

    public func createRoom(_ request: CreateRoomRequest) async throws -> RoomInfo { try await api.createRoom(request) }
    public func rooms(query: String = "", limit: Int = 50) async throws -> [RoomInfo] { try await api.rooms(query: query, limit: limit) }
    public func lookupRoom(uniqueName: String) async throws -> RoomInfo { try await api.lookupRoom(uniqueName: uniqueName) }
    public func enterRoom(uniqueName: String) async throws -> EnterRoomResponse { try await api.enterRoom(uniqueName: uniqueName) }
    public func leaveRoom(_ roomId: Int) async throws { try await api.leaveRoom(roomId: roomId) }
    public func roomPresent(_ roomId: Int) async throws -> [UserBasicInfo] { try await api.roomPresent(roomId: roomId) }
    public func updateRoom(_ request: UpdateRoomRequest) async throws -> RoomInfo { try await api.updateRoom(request) }
    public func kick(_ userId: Int, fromRoom roomId: Int, ban: Bool) async throws {
        try await api.kickFromRoom(roomId: roomId, userId: userId, ban: ban)
    }
    public func unban(_ userId: Int, inRoom roomId: Int) async throws { try await api.unbanFromRoom(roomId: roomId, userId: userId) }
    public func roomBans(_ roomId: Int) async throws -> [UserBasicInfo] { try await api.roomBans(roomId: roomId) }
    public func dropRoom(_ roomId: Int) async throws { try await api.dropRoom(roomId: roomId) }

    /// Says `text` in a room at once (a room is not the outbox's: whoever
    /// is not there when it is said never hears it).
    public func say(_ text: String, inRoom conversationId: String) async throws -> SendMessageResponse {
        try await api.send(SendMessageRequest(recvID: conversationId, content: text, contentType: ContentType.text,
                                              clientMsgId: UUID().uuidString))
    }

    /// A room's messages after `seq`, oldest first (a gap in what was pushed).
    public func roomMessages(_ conversationId: String, after seq: Int) async throws -> [WireMessage] {
        try await api.history(conversationId: conversationId, beforeSeq: nil, afterSeq: seq, limit: 100).messages
    }
}

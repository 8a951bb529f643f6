import ChatCore
import Foundation

/// Rooms (PROTOCOL.md v3): live rooms a user is in while they are there.
/// A room's messages come whole over the socket (`SyncUpdate.room`) and
/// from history while one is present; they are kept in the store (which
/// the room's chat pages from) but never synced: what is said while no one
/// of mine is there is not mine. Being there is `RoomPresence`.
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

    /// Every message of a room between `after` and `before` (both left
    /// out), oldest first, a page of history at a time: what was said
    /// while a push was missed or the socket was down.
    public func roomGap(_ conversationId: String, after: Int, before: Int = .max) async throws -> [WireMessage] {
        var found: [WireMessage] = []
        var from = after
        while from + 1 < before {
            let page = try await roomMessages(conversationId, after: from)
            found += page.filter { $0.seq > from && $0.seq < before }
            guard page.count >= 100, let last = page.last?.seq, last > from else { break }
            from = last
        }
        return found
    }

    // MARK: - The full-screen client's rooms

    /// Enters a room and keeps the newest messages in the store, where the
    /// room's chat pages them from.
    public func enterRoomKeeping(uniqueName: String) async throws -> EnterRoomResponse {
        let entered = try await api.enterRoom(uniqueName: uniqueName)
        try keepRoomMessages(entered.messages, of: entered.room)
        return entered
    }

    /// Fills a room's gap after `after` (and before `before`) from history
    /// into the store; returns what it found, oldest first.
    @discardableResult
    public func fillRoom(_ room: RoomInfo, after: Int, before: Int = .max) async throws -> [WireMessage] {
        let missing = try await roomGap(room.conversationId, after: after, before: before)
        // Known complete from `after` on, up to what came or the seq that showed the gap.
        let high = before == .max ? (missing.last?.seq ?? after) : before - 1
        try store.saveRoomMessages(conversationId: room.conversationId, name: room.name, messages: missing,
                                   coveringFrom: after + 1, to: high)
        return missing
    }

    /// A room's pushed message or its newer state, kept in the store.
    public func keepRoomMessage(_ message: WireMessage, of room: RoomInfo) throws {
        try keepRoomMessages([message], of: room)
    }

    /// A room's pushed update (a reaction, an edit, a revoke) over the kept copy.
    public func keepRoomUpdate(_ message: WireMessage) throws {
        guard ConversationIDHelper.isRoom(message.conversationId) else { return }
        try store.saveUpdated(message)
    }

    /// Messages with no gaps among them (a page of the room, one message):
    /// their seqs are then known complete.
    func keepRoomMessages(_ messages: [WireMessage], of room: RoomInfo) throws {
        let seqs = messages.map(\.seq).filter { $0 > 0 }
        guard let low = seqs.min(), let high = seqs.max() else { return }
        try store.saveRoomMessages(conversationId: room.conversationId, name: room.name, messages: messages,
                                   coveringFrom: low, to: high)
    }
}

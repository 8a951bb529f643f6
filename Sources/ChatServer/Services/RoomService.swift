import ChatCore
import Foundation
import Synchronization

/// Rooms (PROTOCOL.md v3 "Rooms"): live rooms a user is in while they are
/// there. Presence is membership: `enter` until `leave`, a kick, the drop,
/// or their last socket closing (anywhere in the cluster). Entering and
/// leaving are notices (1601-1605) in the room's timeline; nothing of a
/// room is logged to anyone: its messages, notices and info are pushed
/// whole to the users present, after the commit.
final class RoomService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let hub: PushHub
    let messages: MessageService
    let notices: CommitNotifier
    /// Users whose last socket closed, left on a queue of their own (a
    /// socket closes on whatever thread; leaving writes).
    private let offline = DispatchQueue(label: "tongban.rooms.offline")
    /// Set by `stop`: a leave queued (or due) after it is dropped.
    private let stopped = Atomic<Bool>(false)

    init(storage: any ChatStorage, config: ServerConfig, hub: PushHub, messages: MessageService, notices: CommitNotifier) {
        self.storage = storage
        self.config = config
        self.hub = hub
        self.messages = messages
        self.notices = notices
    }

    // MARK: Endpoints

    func create(caller: Int, _ r: CreateRoomRequest) throws -> RoomInfo {
        try requireOnline(caller)
        guard GroupRules.isValidName(r.name) else { throw APIFailure.invalid("name must be 1-64 characters") }
        guard GroupRules.isValidUniqueName(r.uniqueName) else { throw APIFailure.invalid("unique_name must be 3-32 of a-z, 0-9 and _") }
        let topic = try Self.checkTopic(r.topic ?? "")
        defer { leaveIfGone(caller) }
        return try change { tx, c in
            try self.requireOnline(caller)
            guard try tx.rooms.room(uniqueName: r.uniqueName) == nil else {
                throw APIFailure(.conflict, "a room named \(r.uniqueName) exists")
            }
            try Quotas(config: self.config).take(.rooms, by: caller, in: tx)
            let now = self.config.clock.nowMs()
            let rid = try tx.rooms.insert(name: r.name, uniqueName: r.uniqueName, topic: topic, owner: caller, createdAt: now)
            try tx.conversations.create(ConversationIDHelper.room(rid), uidLow: 0, uidHigh: 0, createdAt: now)
            c.room = try tx.rooms.room(rid)
            _ = try tx.rooms.enter(rid, uid: caller, at: now)
            try c.notice(ContentType.roomEntered, by: caller)
            return try c.info()
        }
    }

    func list(query: String, limit: Int) throws -> [RoomInfo] {
        guard (1...100).contains(limit) else { throw APIFailure.invalid("limit must be 1-100") }
        return try storage.read { tx in
            try tx.rooms.list(query: query, limit: limit).map { Self.info($0.room, present: $0.present) }
        }
    }

    /// How far back `/room/mine` remembers an entered room.
    static let recentWindowMs = 30 * 24 * 3600 * 1000

    /// Rooms the caller owns or entered in the last 30 days, latest first.
    func mine(caller: Int) throws -> [RoomInfo] {
        let since = config.clock.nowMs() - Self.recentWindowMs
        return try storage.read { tx in
            try tx.rooms.recent(of: caller, since: since, limit: 100).map {
                Self.info($0, present: try tx.rooms.presentCount($0.rid))
            }
        }
    }

    func lookup(uniqueName: String) throws -> RoomInfo {
        try storage.read { tx in
            let room = try self.room(uniqueName: uniqueName, in: tx)
            return Self.info(room, present: try tx.rooms.presentCount(room.rid))
        }
    }

    /// Enters (again: nothing changes) and answers with who is here and the newest messages.
    func enter(caller: Int, uniqueName: String) throws -> EnterRoomResponse {
        try requireOnline(caller)
        defer { leaveIfGone(caller) }
        let info = try change { tx, c -> RoomInfo in
            // Decided where the presence is recorded: see `leaveIfGone`.
            try self.requireOnline(caller)
            let room = try self.room(uniqueName: uniqueName, in: tx)
            c.room = room
            guard !(try tx.rooms.isBanned(room.rid, uid: caller)) else {
                throw APIFailure.forbidden("you were removed from this room and cannot enter it again")
            }
            if try tx.rooms.enter(room.rid, uid: caller, at: self.config.clock.nowMs()) {
                try c.notice(ContentType.roomEntered, by: caller)
            }
            return try c.info()
        }
        return try storage.read { tx in
            let present = try tx.rooms.present(info.roomId).compactMap { try tx.users.info(uid: $0) }
            let newest = try tx.messages.messages(in: info.conversationId, above: 0, below: Int.max,
                                                  limit: RoomRules.enterMessages, for: caller)
            return EnterRoomResponse(room: info, present: present, messages: newest.reversed().map(\.wire))
        }
    }

    func leave(caller: Int, roomId: Int) throws {
        _ = try change { tx, c in
            c.room = try self.presentRoom(roomId, caller: caller, in: tx)
            try c.notice(ContentType.roomLeft, by: caller)
            _ = try tx.rooms.leave(roomId, uid: caller)
            return try c.info()
        }
    }

    func present(caller: Int, roomId: Int) throws -> [UserBasicInfo] {
        try storage.read { tx in
            _ = try self.presentRoom(roomId, caller: caller, in: tx)
            return try tx.rooms.present(roomId).compactMap { try tx.users.info(uid: $0) }
        }
    }

    func update(caller: Int, _ r: UpdateRoomRequest) throws -> RoomInfo {
        guard r.name != nil || r.topic != nil else { throw APIFailure.invalid("give name or topic") }
        if let name = r.name, !GroupRules.isValidName(name) { throw APIFailure.invalid("name must be 1-64 characters") }
        let topic = try r.topic.map(Self.checkTopic)
        return try change { tx, c in
            var room = try self.ownedRoom(r.roomId, caller: caller, in: tx)
            let renamed = r.name.flatMap { $0 == room.name ? nil : $0 }
            let retopiced = topic.flatMap { $0 == room.topic ? nil : $0 }
            if let renamed { room.name = renamed }
            if let retopiced { room.topic = retopiced }
            c.room = room
            if renamed != nil || retopiced != nil {
                try tx.rooms.update(room)
                try c.notice(ContentType.roomChanged, by: caller, name: renamed, topic: retopiced)
            }
            return try c.info()
        }
    }

    /// Takes a present user out (a 1603 notice); `ban` keeps them out, present or not.
    func kick(caller: Int, roomId: Int, userId: Int, ban: Bool) throws {
        guard userId != caller else { throw APIFailure.invalid("the owner leaves with /room/leave") }
        _ = try change { tx, c in
            c.room = try self.ownedRoom(roomId, caller: caller, in: tx)
            let here = try tx.rooms.isPresent(roomId, uid: userId)
            let exists = try tx.users.info(uid: userId) != nil
            guard here || (ban && exists) else {
                throw APIFailure.notFound("user \(userId) is not in this room")
            }
            if ban { try tx.rooms.ban(roomId, uid: userId) }
            if here {
                try c.notice(ContentType.roomKicked, by: caller, users: [userId])
                _ = try tx.rooms.leave(roomId, uid: userId)
            }
            return try c.info()
        }
    }

    func unban(caller: Int, roomId: Int, userId: Int) throws {
        try storage.write { tx in
            _ = try self.ownedRoom(roomId, caller: caller, in: tx)
            guard try tx.rooms.unban(roomId, uid: userId) else { throw APIFailure.notFound("user \(userId) is not banned here") }
        }
    }

    func bans(caller: Int, roomId: Int) throws -> [UserBasicInfo] {
        try storage.read { tx in
            _ = try self.ownedRoom(roomId, caller: caller, in: tx)
            return try tx.rooms.bans(roomId).compactMap { try tx.users.info(uid: $0) }
        }
    }

    /// The room is gone: a 1605 notice to everyone present, then nobody is.
    func drop(caller: Int, roomId: Int) throws {
        _ = try change { tx, c in
            var room = try self.ownedRoom(roomId, caller: caller, in: tx)
            c.room = room
            try c.notice(ContentType.roomDropped, by: caller)
            for uid in try tx.rooms.present(roomId) { _ = try tx.rooms.leave(roomId, uid: uid) }
            room.dropped = true
            room.uniqueName = nil
            try tx.rooms.update(room)
            c.room = room
            return try c.info()
        }
    }

    // MARK: Presence

    /// Offline is left: `uid` has no socket anywhere any more. Asked again
    /// for each room as it is left, so a reconnect meanwhile keeps them
    /// where they are. `grace`: their node stopped answering, which may be
    /// the database's moment of trouble, not the node's: it gets
    /// `roomPresenceGrace` to come back and say who is online there.
    func wentOffline(_ uid: Int, grace: Bool = false) {
        if grace {
            offline.asyncAfter(deadline: .now() + graceInterval) { [self] in leaveAll(uid) }
        } else {
            offline.async { [self] in leaveAll(uid) }
        }
    }

    /// A node starting on a shared database: whoever is listed as present
    /// but online on no node once the others had the grace to say who is
    /// online on them leaves (every node stopped at once left them listed).
    func sweepAbsentLater() {
        offline.asyncAfter(deadline: .now() + graceInterval) { [self] in
            guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
            do {
                for uid in try storage.read({ tx in try tx.rooms.presentAnywhere() }) where !hub.isOnline(uid) { leaveAll(uid) }
            } catch {
                config.logger.warning("could not look for users present in rooms but online nowhere: \(error)")
            }
        }
    }

    private var graceInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = config.roomPresenceGrace.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    private func leaveAll(_ uid: Int) {
        guard !stopped.load(ordering: .sequentiallyConsistent), !hub.isOnline(uid) else { return }
        do {
            let rooms = try storage.read { tx in try tx.rooms.rooms(of: uid) }
            for rid in rooms {
                _ = try change { tx, c in
                    guard !self.hub.isOnline(uid), let room = try tx.rooms.room(rid), try tx.rooms.isPresent(rid, uid: uid) else {
                        return ()
                    }
                    c.room = room
                    try c.notice(ContentType.roomLeft, by: uid)
                    _ = try tx.rooms.leave(rid, uid: uid)
                    _ = try c.info()
                }
            }
        } catch {
            config.logger.warning("could not take user \(uid) out of their rooms: \(error)")
        }
    }

    /// Waits until every leave queued by `wentOffline` so far is done (one
    /// given a grace runs later).
    func settle() { offline.sync {} }

    /// No leave touches the database once this returns (the server is
    /// stopping: the storage closes next). Users still present then are
    /// taken out when a single node starts again.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        offline.sync {}
    }

    /// The frame another node's commit pushed, read back by its reference.
    func frame(for ref: RoomFrameRef) -> PushFrame? {
        try? storage.read { tx -> PushFrame? in
            switch ref {
            case .message(let id): return try tx.messages.message(id: id).map { .room($0.wire) }
            case .update(let id): return try tx.messages.message(id: id).map { .roomUpdate($0.wire) }
            case .info(let rid):
                guard let room = try tx.rooms.room(rid) else { return nil }
                return .roomInfo(Self.info(room, present: try tx.rooms.presentCount(rid)))
            }
        }
    }

    /// Nobody is present anywhere: a single node starting (its sockets all closed with it).
    func clearPresence() throws { try storage.write { tx in try tx.rooms.clearPresence() } }

    // MARK: Parts

    /// One change of a room: its transaction, its notices, and what the
    /// users present (and those it took out) are told after the commit.
    final class Change {
        let service: RoomService
        let tx: any StorageTransaction
        var room: RoomRow?
        /// Everyone a notice went to (present before, or entering).
        var audience: Set<Int> = []
        var frames: [RoomFrame] = []

        init(service: RoomService, tx: any StorageTransaction) { self.service = service; self.tx = tx }

        /// Appends a notice to the room's timeline, for whoever is present now.
        func notice(_ type: Int, by op: Int, users: [Int] = [], name: String? = nil, topic: String? = nil) throws {
            guard let room else { return }
            let present = try tx.rooms.present(room.rid)
            let row = try RoomService.appendNotice(type, by: op, users: users, name: name, topic: topic, in: room.rid, to: present,
                                                   messages: service.messages, tx: tx)
            audience.formUnion(present)
            frames.append(RoomFrame(frame: .room(row.wire), ref: .message(row.id)))
        }

        /// The room as it is now; its users present hear it (a count, a name, a topic changed).
        func info() throws -> RoomInfo {
            guard let room else { throw APIFailure.notFound("no such room") }
            // One read: who is here gives the count too.
            let present = try tx.rooms.present(room.rid)
            let info = RoomService.info(room, present: present.count)
            frames.append(RoomFrame(frame: .roomInfo(info), ref: .info(room.rid)))
            audience.formUnion(present)
            return info
        }
    }

    /// Stores notice `type` (1601–1605) on room `rid`'s timeline, with the
    /// names of those it is about, for `present` (nothing is pushed here).
    static func appendNotice(_ type: Int, by op: Int, users: [Int] = [], name: String? = nil, topic: String? = nil, in rid: Int,
                             to present: [Int], at time: Int? = nil, messages: MessageService,
                             tx: any StorageTransaction) throws -> MessageRow {
        var names: [String: String] = [:]
        for uid in Set([op] + users) { names[ConversationIDHelper.imUid(uid)] = try tx.users.info(uid: uid)?.username }
        let payload = GroupNoticePayload(contentType: type, opUser: ConversationIDHelper.imUid(op),
                                         users: users.map(ConversationIDHelper.imUid), name: name, notice: topic,
                                         userNames: names)
        var none: [Int: Int] = [:]
        return try messages.append(
            conversationId: ConversationIDHelper.room(rid), sender: op, to: .present(present),
            clientMsgID: "room:\(type):" + MessageService.newServerMsgID(), contentType: type,
            content: payload.jsonText, isControl: false, in: tx, cursors: &none, sendTime: time)
    }

    /// Runs `body` in one write transaction and pushes its frames after the commit.
    private func change<T>(_ body: (any StorageTransaction, Change) throws -> T) throws -> T {
        let (result, frames, audience) = try storage.write { tx -> (T, [RoomFrame], Set<Int>) in
            let c = Change(service: self, tx: tx)
            let result = try body(tx, c)
            return (result, c.frames, c.audience)
        }
        notices.roomPushed(frames, to: audience.sorted())
        return result
    }

    static func info(_ room: RoomRow, present: Int) -> RoomInfo {
        RoomInfo(roomId: room.rid, name: room.name, uniqueName: room.uniqueName ?? "", topic: room.topic,
                 ownerId: ConversationIDHelper.imUid(room.ownerUid), presentCount: present, createdAt: room.createdAt)
    }

    /// Creating or entering needs a socket open somewhere: a room is where
    /// you are while you are there, and offline is left.
    /// A socket that closed while `uid` was being made present found no
    /// room to leave yet (the presence was not committed): read again after
    /// the commit, so nobody without a socket stays present.
    private func leaveIfGone(_ uid: Int) {
        if !hub.isOnline(uid) { wentOffline(uid) }
    }

    private func requireOnline(_ uid: Int) throws {
        guard hub.isOnline(uid) else {
            throw APIFailure(.conflict, "connect to /chat/ws first: rooms are for users online (offline is left)")
        }
    }

    private func room(uniqueName: String, in tx: any StorageTransaction) throws -> RoomRow {
        guard !uniqueName.isEmpty, let room = try tx.rooms.room(uniqueName: uniqueName), !room.dropped else {
            throw APIFailure.notFound("no room named \(uniqueName.prefix(40))")
        }
        return room
    }

    /// A room that exists, for a caller who is in it.
    private func presentRoom(_ rid: Int, caller: Int, in tx: any StorageTransaction) throws -> RoomRow {
        guard rid > 0, let room = try tx.rooms.room(rid), !room.dropped else { throw APIFailure.notFound("no such room") }
        guard try tx.rooms.isPresent(rid, uid: caller) else { throw APIFailure.forbidden("you are not in this room") }
        return room
    }

    private func ownedRoom(_ rid: Int, caller: Int, in tx: any StorageTransaction) throws -> RoomRow {
        guard rid > 0, let room = try tx.rooms.room(rid), !room.dropped else { throw APIFailure.notFound("no such room") }
        guard room.ownerUid == caller else { throw APIFailure.forbidden("only the room's owner can do that") }
        return room
    }

    private static func checkTopic(_ topic: String) throws -> String {
        guard topic.count <= RoomRules.topicMaxLength else {
            throw APIFailure(.tooLarge, "topic is longer than \(RoomRules.topicMaxLength) characters")
        }
        return topic
    }
}

/// A frame a room's users present are pushed, and how another node of the
/// cluster finds it again (the bus carries the reference, not the frame).
struct RoomFrame: Sendable {
    let frame: PushFrame
    let ref: RoomFrameRef
}

package enum RoomFrameRef: Sendable, Equatable {
    /// A new message or notice: `.room`.
    case message(Int64)
    /// A message as it is now: `.roomUpdate`.
    case update(Int64)
    /// The room's info: `.roomInfo`.
    case info(Int)
}

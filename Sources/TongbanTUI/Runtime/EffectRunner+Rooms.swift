import ChatCore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Rooms' I/O (PROTOCOL.md v3 "Rooms"): each asks the session and answers
/// with `RoomEvent`s; a failure is an `Outcome` the update words
/// ("进入房间失败：…"). A room's messages go into the store, where its
/// chat pages them from like any chat's.
extension EffectRunner {
    func room(_ command: RoomEffect) async {
        switch command {
        case .directory(let query):
            let rooms = await attempt(.roomList) { try await self.session.rooms(query: query) } ?? []
            await dispatch(.rooms(.directory(query: query, rooms)))
        case .create(let name, let unique, let topic):
            guard await attempt(.roomCreate, {
                try await self.session.createRoom(CreateRoomRequest(name: name, uniqueName: unique, topic: topic.isEmpty ? nil : topic))
            }) != nil else { return }
            // The maker is in the room already; entering answers who is here and what was said.
            await enterRoom(unique, again: false)
        case .enter(let unique, let again):
            await enterRoom(unique, again: again)
        case .keep(let message, let room):
            do { try session.keepRoomMessage(message, of: room) } catch { await dispatch(.outcome(.failed(.roomKeep, Failure(error)))) }
        case .keepUpdate(let message):
            do { try session.keepRoomUpdate(message) } catch { await dispatch(.outcome(.failed(.roomKeep, Failure(error)))) }
        case .fill(let room, let after, let before):
            // Nothing said while connected is lost: what was missed comes from history.
            guard let missed = await attempt(.roomFill, { try await self.session.fillRoom(room, after: after, before: before) })
            else { return }
            await dispatch(.rooms(.filled(conversationId: room.conversationId, missed)))
        case .refreshPresent(let rid):
            guard let users = try? await session.roomPresent(rid) else { return }
            await dispatch(.rooms(.present(roomId: rid, users)))
        case .leave(let rid):
            // Gone from the list even when the server cannot be told: the socket closing leaves too.
            let told = await attempt(.roomLeave) { try await self.session.leaveRoom(rid) } != nil
            await dispatch(.rooms(.left(roomId: rid, why: told ? .left : nil)))
        case .update(let rid, let name, let topic):
            guard let info = await attempt(.roomUpdate, {
                try await self.session.updateRoom(UpdateRoomRequest(roomId: rid, name: name, topic: topic))
            }) else { return }
            await dispatch(.rooms(.changed(info)))
        case .kick(let rid, let uid, let ban):
            guard await attempt(.roomKick, { try await self.session.kick(uid, fromRoom: rid, ban: ban) }) != nil else { return }
            await dispatch(.outcome(.roomRemoved(banned: ban)))
        case .unban(let rid, let uid):
            guard await attempt(.roomUnban, { try await self.session.unban(uid, inRoom: rid) }) != nil else { return }
            await dispatch(.outcome(.roomUnbanned))
        case .loadBans(let rid):
            guard let users = await attempt(.roomBans, { try await self.session.roomBans(rid) }) else { return }
            await dispatch(.rooms(.bans(roomId: rid, users)))
        case .drop(let rid):
            guard await attempt(.roomDrop, { try await self.session.dropRoom(rid) }) != nil else { return }
            await dispatch(.rooms(.left(roomId: rid, why: .dropped)))
        }
    }

    /// Enters a room (its newest messages into the store first, so its chat
    /// opens on them). Entering again after a reconnect that fails (I was
    /// removed, the room was dropped) takes the room off the list.
    private func enterRoom(_ unique: String, again: Bool) async {
        do {
            let entered = try await session.enterRoomKeeping(uniqueName: unique)
            await dispatch(.rooms(.entered(entered, again: again)))
        } catch APIError.server(let status, _, _, _, _) where again && (status == 403 || status == 404) {
            guard let room = try? await session.lookupRoom(uniqueName: unique) else {
                return await dispatch(.rooms(.vanished(unique: unique)))
            }
            await dispatch(.rooms(.left(roomId: room.roomId, why: .cannotReenter(name: room.name))))
        } catch where again {
            await dispatch(.rooms(.reenterFailed(unique: unique, reason: Failure(error))))
        } catch {
            await dispatch(.outcome(.failed(.roomEnter, Failure(error))))
        }
    }

    /// Leaves every room on the way out (the socket closing would leave
    /// them too, a moment later on the server's side), for at most a second.
    func leaveRooms(_ ids: [Int]) async {
        guard !ids.isEmpty else { return }
        let session = self.session
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { leaves in
                    for id in ids { leaves.addTask { try? await session.leaveRoom(id) } }
                }
            }
            group.addTask { try? await Task.sleep(for: .seconds(1)) }
            await group.next()
            group.cancelAll()
        }
    }
}

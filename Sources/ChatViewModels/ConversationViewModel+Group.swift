import ChatCore
import ChatStore
import ChatSync
import Foundation

/// A group chat: who is in it, what their names are, mentions, and the
/// owner's changes (PROTOCOL.md "Groups", "Mentions").
extension ConversationViewModel {
    public var isOwner: Bool { group?.ownerId == myImUid }

    /// Names, members and the group's info as cached (works offline).
    func loadGroup() {
        guard let gid = conversation.groupId else { return }
        senderNames = (try? session.reader.senderNames(groupId: gid)) ?? senderNames
        members = (try? session.reader.members(groupId: gid)) ?? members
        group = (try? session.reader.group(id: gid)) ?? group
        groupStale = false
    }

    /// Asks the server for the member list (and the group's info), then shows it.
    public func refreshMembers() async {
        guard let gid = conversation.groupId else { return }
        do {
            try await session.refreshGroup(gid)
        } catch {
            // Offline or no longer a member: the cached list stays.
        }
        loadGroup()
        changed()
    }

    /// Sends `text` naming `mentioned` (imUids); `atAll` for everyone.
    @discardableResult
    public func sendMention(_ text: String, mentioned: [String], atAll: Bool) async -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return true }
        // Only names still in the text count: one deleted after completing is not a mention.
        let kept = mentioned.filter { id in
            guard let uid = ConversationIDHelper.uid(fromImUid: id), let m = members.first(where: { $0.uid == uid }) else { return false }
            return trimmed.contains("@" + m.username)
        }
        guard !kept.isEmpty || atAll else { return await sendText(trimmed) }
        let mention = MentionPayload(text: trimmed, atUserIDs: Array(Set(kept)).sorted(), atAll: atAll && isOwner)
        await enqueue { queue, id, receiveId in try await queue.enqueue(.mention(mention), to: id, receiveId: receiveId) }
        return true
    }

    // MARK: - The owner's changes, and anyone's invitations

    public func rename(to name: String) async { await update(UpdateGroupRequest(groupId: conversation.groupId ?? 0, name: name)) }
    public func setNotice(_ notice: String) async { await update(UpdateGroupRequest(groupId: conversation.groupId ?? 0, notice: notice)) }
    public func setJoinable(_ joinable: Bool) async {
        await update(UpdateGroupRequest(groupId: conversation.groupId ?? 0, joinable: joinable))
    }

    func update(_ request: UpdateGroupRequest) async {
        guard conversation.isGroup else { return }
        await groupCall { try await self.session.updateGroup(request) }
    }

    /// Adds people named by account, display name or uid.
    public func invite(_ names: [String]) async {
        guard let gid = conversation.groupId else { return }
        await groupCall {
            var uids: [Int] = []
            for n in names { uids.append(try await self.session.user(named: n).uid) }
            try await self.session.invite(uids, to: gid)
        }
    }

    /// Removes a member named by account, display name or uid (owner only).
    public func kick(_ name: String) async {
        guard let gid = conversation.groupId else { return }
        await groupCall {
            var uid = self.members.first { $0.isNamed(name) }?.uid
            if uid == nil { uid = try await self.session.user(named: name).uid }
            try await self.session.kick(uid ?? 0, from: gid)
        }
    }

    /// Removes the member with this uid (owner only): picked from the list,
    /// so no name can stand for someone else.
    public func kick(uid: Int) async {
        guard let gid = conversation.groupId else { return }
        await groupCall { try await self.session.kick(uid, from: gid) }
    }

    /// One call to the server, then what it changed; a refusal goes to the status line.
    func groupCall(_ body: () async throws -> Void) async {
        do {
            try await body()
            _ = try? await session.sync.pull()
            await refreshMembers()
        } catch {
            fail(error)
        }
        reload()
        changed()
    }
}

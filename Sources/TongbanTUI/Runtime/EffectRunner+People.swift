import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation

/// People's I/O (PROTOCOL.md v3): each asks the session, answers with
/// `PeopleEvent`s, and says a failure on the status line in the user's
/// words ("添加好友失败：…", `ServerWords`).
extension EffectRunner {
    func people(_ command: PeopleEffect) async {
        switch command {
        case .load:
            await loadStoredPeople(blocked: nil)
            // The server's view (the store may be behind, or never filled).
            guard await attempt("people.loadFailed", { try await self.session.refreshPeople() }) != nil else { return }
            let blocked = await attempt("people.loadFailed") { try await self.session.blocked() }
            await loadStoredPeople(blocked: blocked)
        case .loadStored:
            // Quietly: offline at start is no failure of anything asked for.
            await loadStoredPeople(blocked: try? await session.blocked())
        case .search(let query):
            let users = await attempt("people.lookupFailed") { try await self.session.searchUsers(query) } ?? []
            if users.isEmpty { await dispatch(.status(L.string("people.noSuchUser"))) }
            await dispatch(.people(.found(query: query, users)))
        case .request(let user, let message):
            let trimmed = message.trimmingCharacters(in: .whitespaces)
            guard let r = await attempt("people.requestFailed", {
                try await self.session.requestFriend(user, message: trimmed.isEmpty ? nil : trimmed)
            }) else { return }
            let name = TerminalSanitizer.oneLine(user.username)
            await dispatch(.status(L.string(r.status == .accepted ? "people.nowFriends" : "people.requested", ["name": name])))
            await loadStoredPeople(blocked: nil)
        case .respond(let id, let accept):
            guard let r = await attempt("people.answerFailed", { try await self.session.respondFriend(id, accept: accept) })
            else { return }
            let name = TerminalSanitizer.oneLine(r.from.username)
            await dispatch(.status(L.string(accept ? "people.nowFriends" : "people.declined", ["name": name])))
            await loadStoredPeople(blocked: nil)
        case .remove(let contact):
            guard await attempt("people.removeFailed", { try await self.session.removeFriend(contact) }) != nil else { return }
            await dispatch(.status(L.string("people.removed", ["name": TerminalSanitizer.oneLine(contact.username)])))
            await reopenPeer(contact.uid)
        case .remark(let uid, let text):
            guard await attempt("people.remarkFailed", { try await self.session.setRemark(text, for: uid) }) != nil else { return }
            await reopenPeer(uid)
        case .block(let uid):
            guard await attempt("people.blockFailed", { try await self.session.block(uid) }) != nil else { return }
            await refreshBlocked()
            await reopenPeer(uid)
        case .unblock(let uid):
            guard await attempt("people.unblockFailed", { try await self.session.unblock(uid) }) != nil else { return }
            await refreshBlocked()
            await reopenPeer(uid)
        case .loadMine:
            async let profile = attempt("people.loadFailed") { try await self.session.myProfile() }
            async let settings = attempt("people.loadFailed") { try await self.session.settings() }
            async let devices = attempt("people.loadFailed") { try await self.session.devices() }
            await dispatch(.people(.mine(await profile, await settings, await devices)))
        case .updateProfile(let name, let signature):
            let request = UpdateProfileRequest(username: name, signature: signature)
            guard let info = await attempt("people.profileFailed", { try await self.session.updateProfile(request) }) else { return }
            await dispatch(.people(.mine(info, nil, nil)))
        case .setAvatar(let path):
            guard let jpeg = await avatarFile(path),
                  let info = await attempt("people.profileFailed", { try await self.session.setAvatar(jpeg: jpeg) }) else { return }
            await dispatch(.people(.mine(info, nil, nil)))
        case .acceptStrangers(let accept):
            let settings = await attempt("people.settingsFailed") { try await self.session.setAcceptStrangers(accept) }
            await dispatch(.people(.mine(nil, settings ?? UserSettings(acceptStrangers: !accept), nil)))
        case .signOutDevice(let id):
            guard await attempt("people.signOutFailed", { try await self.session.signOut(device: id) }) != nil else { return }
            await dispatch(.status(L.string("people.signedOutDevice", ["id": id])))
            await dispatch(.people(.mine(nil, nil, await attempt("people.loadFailed") { try await self.session.devices() })))
        case .changePassword(let current, let new):
            guard await attempt("password.failed", { try await self.session.changePassword(current: current, new: new) }) != nil
            else { return }
            // The server signed my other devices out: the page's list shows it.
            await dispatch(.status(L.string("password.changed")))
            await dispatch(.people(.mine(nil, nil, await attempt("people.loadFailed") { try await self.session.devices() })))
        case .logout:
            _ = try? await Session.logout(paths: session.paths)
            await dispatch(.people(.loggedOut))
        case .openPeer(let uid):
            await reopenPeer(uid, opening: true)
        }
    }

    /// Friends and requests as the store has them, and (when given) blocks.
    func loadStoredPeople(blocked: [UserBasicInfo]?) async {
        let contacts = (try? session.reader.contacts()) ?? []
        let requests = (try? session.reader.friendRequests()) ?? []
        await dispatch(.people(.loaded(contacts: contacts, requests: requests, blocked: blocked)))
    }

    func refreshBlocked() async {
        await loadStoredPeople(blocked: await attempt("people.loadFailed") { try await self.session.blocked() })
    }

    /// A peer's page: their profile (the server's, else the store's), our
    /// shared groups; shown when `opening`, else only while it is on screen.
    func reopenPeer(_ uid: Int, opening: Bool = false) async {
        if opening { await refreshBlocked() } else { await loadStoredPeople(blocked: nil) }
        var user = (try? session.reader.profiles(uids: [uid]))?[uid] ?? UserBasicInfo(uid: uid, username: String(uid))
        if let fresh = try? await session.profile(uid) { user = fresh }
        let groups = ((try? session.reader.conversationList(localizer: L, useCache: true)) ?? []).filter { c in
            guard c.isGroup, c.isMember, let gid = ConversationIDHelper.groupId(c.id) else { return false }
            return ((try? session.reader.members(groupId: gid)) ?? []).contains { $0.uid == uid }
        }
        await dispatch(.people(.peer(PeerPage(user: user, sharedGroups: groups.map(\.nickname)), opening: opening)))
    }

    /// `/avatar PATH` in a group (owner only): the picture made small and
    /// stripped, uploaded, made the group's; the header and page show it.
    func setGroupAvatar(_ path: String, of chat: ChatState) async {
        guard let gid = chat.conversation.groupId else { return }
        guard let jpeg = await avatarFile(path) else { return }
        guard let info = await attempt("group.avatarFailed", {
            let key = try await self.session.uploadAvatar(jpeg: jpeg)
            return try await self.session.updateGroup(UpdateGroupRequest(groupId: gid, avatar: key))
        }) else { return }
        await dispatch(.chat(.groupChanged, chat.ref))
        await dispatch(.status(L.string("group.avatarSet")))
        decodeAvatar(info.avatar)
    }

    /// The picture at `path` made an avatar (`AvatarImage`), off the keys;
    /// nil, said on the status line, when it cannot be read.
    func avatarFile(_ path: String) async -> Data? {
        do {
            return try await Task.detached { try AvatarImage.prepare(path: path) }.value
        } catch {
            await dispatch(.status(L.string("people.avatarUnreadable", ["path": TerminalSanitizer.oneLine(path)])))
            return nil
        }
    }

    /// Decodes a profile or group picture for a page, fetching it first.
    func decodeAvatar(_ key: String) {
        let media = session.media, decoder = pictureDecoder
        Task { @MainActor [weak self] in
            let outcome: AppState.Thumbnail
            do {
                if media.localURL(for: key) == nil { try await media.prefetch(url: "", expireAt: 0, objectKey: key) }
                guard let url = media.localURL(for: key), let data = FileManager.default.contents(atPath: url.path) else {
                    throw ImageCodec.Failure(description: "not cached")
                }
                outcome = .ready(try await decoder.decode(data, AvatarWidget.decodedSide, AvatarWidget.decodedSide))
            } catch let e as ImageCodec.Failure where e.transient {
                outcome = .retryLater
            } catch {
                outcome = .undecodable
            }
            await self?.dispatch(.thumbnailDecoded(key: key, outcome))
        }
    }

    /// Runs a call; its failure goes to the status line under `failure`.
    func attempt<T>(_ failure: String, _ body: @escaping () async throws -> T) async -> T? {
        do {
            return try await body()
        } catch {
            await dispatch(.status(ServerWords.failed(failure, error, L)))
            return nil
        }
    }
}

import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation

/// People's I/O (PROTOCOL.md v3): each asks the session, answers with
/// `PeopleEvent`s, and tells a failure as an `Outcome` (what was tried,
/// and why), which the update words.
extension EffectRunner {
    func people(_ command: PeopleEffect) async {
        switch command {
        case .load:
            await loadStoredPeople(blocked: nil)
            // The server's view (the store may be behind, or never filled).
            guard await attempt(.loadPeople, { try await self.session.refreshPeople() }) != nil else { return }
            let blocked = await attempt(.loadPeople) { try await self.session.blocked() }
            await loadStoredPeople(blocked: blocked)
            // The rooms section: quietly (an older server has no /room/mine).
            if let rooms = try? await session.myRooms() { await dispatch(.people(.rooms(rooms))) }
        case .loadStored:
            // Quietly: offline at start is no failure of anything asked for.
            await loadStoredPeople(blocked: try? await session.blocked())
        case .search(let query):
            let users = await attempt(.lookUp) { try await self.session.searchUsers(query) } ?? []
            if users.isEmpty { await dispatch(.outcome(.noSuchUser)) }
            await dispatch(.people(.found(query: query, users)))
        case .request(let user, let message):
            let trimmed = message.trimmingCharacters(in: .whitespaces)
            guard let r = await attempt(.request, {
                try await self.session.requestFriend(user, message: trimmed.isEmpty ? nil : trimmed)
            }) else { return }
            await dispatch(.outcome(.friendRequested(name: user.username, accepted: r.status == .accepted)))
            await loadStoredPeople(blocked: nil)
        case .respond(let id, let accept):
            guard let r = await attempt(.answer, { try await self.session.respondFriend(id, accept: accept) })
            else { return }
            await dispatch(.outcome(.friendAnswered(name: r.from.username, accepted: accept)))
            await loadStoredPeople(blocked: nil)
        case .remove(let contact):
            guard await attempt(.removeFriend, { try await self.session.removeFriend(contact) }) != nil else { return }
            await dispatch(.outcome(.friendRemoved(name: contact.username)))
            await reopenPeer(contact.uid)
        case .remark(let uid, let text):
            guard await attempt(.remark, { try await self.session.setRemark(text, for: uid) }) != nil else { return }
            await reopenPeer(uid)
        case .block(let uid):
            guard await attempt(.block, { try await self.session.block(uid) }) != nil else { return }
            await refreshBlocked()
            await reopenPeer(uid)
        case .unblock(let uid):
            guard await attempt(.unblock, { try await self.session.unblock(uid) }) != nil else { return }
            await refreshBlocked()
            await reopenPeer(uid)
        case .loadMine:
            async let profile = attempt(.loadPeople) { try await self.session.myProfile() }
            async let settings = attempt(.loadPeople) { try await self.session.settings() }
            async let devices = attempt(.loadPeople) { try await self.session.devices() }
            await dispatch(.people(.mine(await profile, await settings, await devices)))
        case .updateProfile(let name, let signature):
            let request = UpdateProfileRequest(username: name, signature: signature)
            guard let info = await attempt(.profile, { try await self.session.updateProfile(request) }) else { return }
            await dispatch(.people(.mine(info, nil, nil)))
        case .setAvatar(let path):
            guard let jpeg = await avatarFile(path),
                  let info = await attempt(.profile, { try await self.session.setAvatar(jpeg: jpeg) }) else { return }
            await dispatch(.people(.mine(info, nil, nil)))
        case .settings(let change):
            // Refused: the page shows what the server has.
            var settings = await attempt(.settings) { try await self.session.setSettings(change) }
            if settings == nil { settings = try? await session.settings() }
            await dispatch(.people(.mine(nil, settings, nil)))
        case .signOutDevice(let id):
            guard await attempt(.signOut, { try await self.session.signOut(device: id) }) != nil else { return }
            await dispatch(.outcome(.deviceSignedOut(id: id)))
            await dispatch(.people(.mine(nil, nil, await attempt(.loadPeople) { try await self.session.devices() })))
        case .changePassword(let current, let new):
            guard await attempt(.password, { try await self.session.changePassword(current: current, new: new) }) != nil
            else { return }
            // The server signed my other devices out: the page's list shows it.
            await dispatch(.outcome(.passwordChanged))
            await dispatch(.people(.mine(nil, nil, await attempt(.loadPeople) { try await self.session.devices() })))
        case .logout:
            _ = try? await Session.logout(paths: session.paths)
            await dispatch(.people(.loggedOut))
        case .openPeer(let uid):
            await reopenPeer(uid, opening: true)
        case .verify(let uid, let number):
            do { try session.markVerified(number, with: uid) } catch { await dispatch(.outcome(.failed(.verify, Failure(error)))) }
        case .secretTimer(let id, let seconds):
            _ = await attempt(.secretTimer) { try await self.session.setSecretTimer(seconds, in: id) }
        }
    }

    /// Friends and requests as the store has them, and (when given) blocks.
    func loadStoredPeople(blocked: [UserBasicInfo]?) async {
        let contacts = (try? session.reader.contacts()) ?? []
        let requests = (try? session.reader.friendRequests()) ?? []
        await dispatch(.people(.loaded(contacts: contacts, requests: requests, blocked: blocked)))
    }

    func refreshBlocked() async {
        await loadStoredPeople(blocked: await attempt(.loadPeople) { try await self.session.blocked() })
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
        var page = PeerPage(user: user, sharedGroups: groups.map(\.nickname))
        let secret = ConversationIDHelper.secret(myUid: session.credentials.uid, targetUid: uid)
        if (try? session.reader.conversation(id: secret, localizer: L)) != nil {
            page.secretChat = secret
            page.timer = (try? session.secretTimer(in: secret)) ?? 0
        }
        if let number = try? await session.safetyNumber(with: uid) {
            page.safetyNumber = number
            page.verified = (try? session.isVerified(number, with: uid)) ?? false
        }
        await dispatch(.people(.peer(page, opening: opening)))
    }

    /// `/avatar PATH` in a group (owner only): the picture made small and
    /// stripped, uploaded, made the group's; the header and page show it.
    func setGroupAvatar(_ path: String, of chat: ChatState) async {
        guard let gid = chat.conversation.groupId else { return }
        guard let jpeg = await avatarFile(path) else { return }
        guard let info = await attempt(.groupAvatar, {
            let key = try await self.session.uploadAvatar(jpeg: jpeg)
            return try await self.session.updateGroup(UpdateGroupRequest(groupId: gid, avatar: key))
        }) else { return }
        await dispatch(.chat(.groupChanged, chat.ref))
        await dispatch(.outcome(.groupAvatarSet))
        decodeAvatar(info.avatar)
    }

    /// The picture at `path` made an avatar (`AvatarImage`), off the keys;
    /// nil, said on the status line, when it cannot be read.
    func avatarFile(_ path: String) async -> Data? {
        do {
            return try await Task.detached { try AvatarImage.prepare(path: path) }.value
        } catch {
            await dispatch(.outcome(.avatarUnreadable(path: path)))
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

    /// Runs a call; its failure goes to the status line as what was tried.
    func attempt<T>(_ tried: Outcome.Attempt, _ body: @escaping () async throws -> T) async -> T? {
        do {
            return try await body()
        } catch {
            await dispatch(.outcome(.failed(tried, Failure(error))))
            return nil
        }
    }
}

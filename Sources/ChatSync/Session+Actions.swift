import ChatCore
import ChatStore
import Foundation

/// Every write a view model asks for (as the GRDB demo's AppDatabase holds
/// its app's writes): each asks the server where the server must agree,
/// then writes the answer to the store. The view models read the store and
/// follow it; they write it only through these, the sync engine and the
/// send queue, so ChatSync is the one layer that writes.
extension Session {
    // MARK: - Conversations

    /// The server's list, stored.
    public func refreshConversations() async throws {
        try store.saveSummaries(try await api.conversations())
    }

    /// Pins or unpins on the server and stores its answer (the full-screen
    /// client and `tongban pin` alike).
    public func pin(_ id: String, _ isPinned: Bool) async throws {
        try store.saveSummaries([try await api.pin(conversationId: id, isPinned: isPinned)])
    }

    public func mute(_ id: String, _ isMuted: Bool) async throws {
        try store.saveSummaries([try await api.mute(conversationId: id, isMuted: isMuted)])
    }

    /// Off the list and its history gone, once the server agrees.
    public func deleteConversation(_ id: String) async throws {
        try await api.deleteConversation(id)
        try store.deleteConversation(id: id)
    }

    /// The history gone here and on the server; the chat stays listed.
    public func clearHistory(_ id: String) async throws {
        try await api.clearConversation(id)
        try store.clearHistory(id: id)
    }

    /// Starts (or finds) the chat with `user`, with their profile cached;
    /// returns its id.
    public func startConversation(with user: UserBasicInfo) async throws -> String {
        let summary = try await api.startConversation(userId: user.uid)
        try store.saveSummaries([summary])
        try store.saveProfiles([user])
        return summary.conversationId
    }

    /// The chat a signal reply opened: its first message will carry the quote.
    public func noteSignalContext(_ id: String, of item: SignalInboxItem) throws {
        try store.setSignalContext(id: id, signalId: item.signalId, receiveId: item.receiveId,
                                   reply: item.replyContent, content: item.signalContent)
    }

    /// The signal quote went out: the chat is open on both sides.
    public func openIM(_ id: String, receiveId: String?) async throws {
        try store.setImOpened(id: id)
        if let receiveId { try await api.openIM(receiveId: receiveId) }
    }

    /// What is typed and not sent (blank removes it).
    public func setDraft(_ id: String, _ text: String?) throws {
        try store.setDraft(id: id, text: text)
    }

    /// Read here up to `seq`; the server hears of it separately (one
    /// request at a time carries the newest seq during a flood).
    public func markReadLocally(_ id: String, upTo seq: Int) throws {
        try store.markRead(id: id, upTo: seq)
    }

    /// A flash image shown once is destroyed here at once; `flash_viewed`
    /// follows through the send queue.
    public func destroyFlash(clientMsgID: String) throws {
        try store.setFlashViewed(clientMsgID: clientMsgID)
    }

    // MARK: - Acting on a message (v3)

    /// Adds or takes back my `emoji` on a message; the store takes the
    /// server's answer at once (the sync's `message_update` says the same).
    public func react(to clientMsgID: String, in id: String, emoji: String, on: Bool) async throws {
        if ConversationIDHelper.isSecret(id) { return try await reactSecretly(to: clientMsgID, in: id, emoji: emoji, on: on) }
        let reactions = try await api.react(conversationId: id, clientMsgID: clientMsgID, emoji: emoji, on: on)
        try store.setReactions(clientMsgID: clientMsgID, reactions)
    }

    /// My text, mention or reply `clientMsgID` now says `text`; a mention
    /// keeps whom it named, a reply what it quotes. The store takes the message as the server now has it.
    public func edit(_ clientMsgID: String, in id: String, to text: String) async throws {
        if ConversationIDHelper.isSecret(id) { return try await editSecretly(clientMsgID, in: id, to: text) }
        guard let m = try store.message(clientMsgID: clientMsgID) else { throw StoreError.unknownMessage(clientMsgID) }
        let (_, decoded) = IMMessageMapper.decode(contentType: m.contentType, content: m.content)
        // A kind that cannot be edited goes as the text: the server says no.
        let content = m.kind.reword.flatMap { IMMessageMapper.wireContent(for: $0(decoded, text))?.content } ?? text
        let updated = try await api.edit(conversationId: id, clientMsgID: clientMsgID, content: content)
        try store.saveUpdated(updated)
    }

    /// Deletes messages for me alone: the server first (my other devices
    /// hear of it), then here. A message the server never saw (failed,
    /// unsent) is the send queue's to discard, not this.
    public func deleteForMe(_ clientMsgIDs: [String], in id: String) async throws {
        try await api.deleteMessages(conversationId: id, clientMsgIDs: clientMsgIDs)
        try store.deleteForMe(clientMsgIDs, in: id)
    }

    /// Keeps a copy of a message in my favourites (on the server: they
    /// outlive leaving the group and reach my other devices).
    @discardableResult
    public func addFavorite(_ clientMsgID: String, in id: String) async throws -> Favorite {
        try await api.addFavorite(conversationId: id, clientMsgID: clientMsgID)
    }

    /// All my favourites, newest first (a page of 100 at a time from the server).
    public func favorites() async throws -> [Favorite] {
        var all: [Favorite] = []
        var before: Int?
        while true {
            let page = try await api.favorites(before: before, limit: 100)
            all += page.favorites
            guard page.hasMore, let last = page.favorites.last else { return all }
            before = last.favoriteId
        }
    }

    public func removeFavorite(_ favoriteId: Int) async throws {
        try await api.removeFavorite(favoriteId)
    }

    /// The server hears how far I read in `id` (the store already knows).
    public func sendReadMark(_ id: String, upTo seq: Int) async throws {
        _ = try await api.markRead(conversationId: id, seq: seq)
    }

    // MARK: - People

    /// Users whose account or name matches `query`, from the server.
    public func searchUsers(_ query: String) async throws -> [UserBasicInfo] {
        try await api.searchUsers(query)
    }

    /// My new display name, on the server and in the saved login.
    public func rename(to name: String) async throws -> UserBasicInfo {
        let info = try await api.rename(to: name)
        try store.saveProfiles([info])
        var saved = credentials
        saved.username = info.username
        try Session.save(saved, paths: paths)
        return info
    }

    /// Replies to my signals.
    public func signalInbox() async throws -> [SignalInboxItem] {
        try await api.signalInbox()
    }

    /// v4: others' signals, newest first (below `before` for the next page).
    public func signalFeed(before: Int? = nil, limit: Int = 20) async throws -> [SignalFeedItem] {
        try await api.signalFeed(before: before, limit: limit)
    }

    /// My signals, newest first, with how many replied.
    public func mySignals() async throws -> [MySignal] { try await api.mySignals() }

    /// Posts a signal (1-500 characters); returns its id.
    public func postSignal(_ content: String) async throws -> Int { try await api.createSignal(content) }

    /// Replies to someone's signal; returns the reply's `receiveId`. The
    /// signal's author opens the chat from their inbox.
    public func replySignal(_ signalId: Int, content: String) async throws -> String {
        try await api.replySignal(signalId: signalId, content: content)
    }

    public func deleteSignal(_ signalId: Int) async throws { try await api.deleteSignal(signalId) }
    public func hideSignal(_ signalId: Int) async throws { try await api.hideSignal(signalId) }
    public func reportSignal(_ signalId: Int, reason: String) async throws { try await api.reportSignal(signalId, reason: reason) }

    /// Opens the chat with the one who replied to my signal: its first
    /// message will quote the signal (sent once, from any of my devices).
    public func openSignalChat(_ item: SignalInboxItem) async throws -> String {
        let id = try await startConversation(with: item.from)
        try noteSignalContext(id, of: item)
        return id
    }

    // MARK: - Typing and read receipts (v4)

    /// Tells the chat's others I am typing (the caller paces it: at most every 3 s).
    public func typing(in conversationId: String) async throws { try await api.typing(conversationId: conversationId) }

    /// How many of a group's members read each of my messages `seqs` (1-100).
    public func readCounts(in conversationId: String, seqs: [Int]) async throws -> [Int: ReadCountsResponse.Count] {
        let answer = try await api.readCounts(conversationId: conversationId, seqs: seqs)
        var out: [Int: ReadCountsResponse.Count] = [:]
        for (key, count) in answer.counts { if let seq = Int(key) { out[seq] = count } }
        return out
    }

    /// Who read my group message `seq`, and who has not.
    public func readers(in conversationId: String, seq: Int) async throws -> ReadersResponse {
        try await api.readers(conversationId: conversationId, seq: seq)
    }

    /// Rooms I own or entered in the last 30 days, latest first.
    public func myRooms() async throws -> [RoomInfo] { try await api.myRooms() }

    // MARK: - History

    /// The server's page of `id` before `beforeSeq` (nil: the newest),
    /// stored as covering the seqs `covering` reads from it: the store then
    /// knows that range holds no holes. Returns the page.
    @discardableResult
    public func fetchHistory(_ id: String, beforeSeq: Int?, limit: Int,
                             covering: @Sendable (HistoryResponse) -> (from: Int, to: Int)) async throws -> HistoryResponse {
        let page = try await api.history(conversationId: id, beforeSeq: beforeSeq, limit: limit)
        let range = covering(page)
        try store.saveHistory(conversationId: id, messages: page.messages, coveringFrom: range.from, to: range.to)
        return page
    }

    /// Fills the holes of `id`'s history from the server, the newest hole
    /// first, `pageSize` (1-100) messages a request, at most `maxPages`
    /// requests (nil: until the store holds everything the server keeps for
    /// me). A page covers from its oldest message up to the hole's top, or
    /// down to seq 1 when the server has nothing older. Returns the number
    /// of requests made.
    @discardableResult
    public func fillHistory(_ id: String, pageSize: Int = 100, maxPages: Int? = nil) async throws -> Int {
        let limit = max(1, min(pageSize, 100))
        var requests = 0
        var before: [ClosedRange<Int>]?
        while maxPages.map({ requests < $0 }) ?? true {
            try Task.checkCancellation()
            let missing = try store.missingRanges(conversationId: id)
            // A page that changed nothing would be asked for again forever.
            guard let top = missing.last, missing != before else { break }
            before = missing
            let high = top.upperBound
            try await fetchHistory(id, beforeSeq: high + 1, limit: limit) { page in
                (from: page.hasMore ? (page.messages.first?.seq ?? high + 1) : 1, to: high)
            }
            requests += 1
        }
        return requests
    }

    // MARK: - Groups

    /// Creates a group with me as owner; its notice and conversation come
    /// with the next pull.
    /// A group whose unique name you already hold as a member is opened,
    /// not created again (seed 001 §8.2: look in the local contacts first).
    public func createGroup(_ request: CreateGroupRequest) async throws -> GroupInfo {
        if let mine = try store.group(named: request.uniqueName), mine.uniqueName == request.uniqueName,
           try store.conversation(id: mine.conversationId)?.isMember == true {
            return mine
        }
        let info = try await api.createGroup(request)
        try store.saveGroup(info)
        _ = try? await sync.pull()
        return info
    }

    public func joinGroup(uniqueName: String) async throws -> ConversationSummary {
        let summary = try await api.joinGroup(uniqueName: uniqueName)
        try store.saveSummaries([summary])
        _ = try? await sync.pull()
        return summary
    }

    /// Leaves; the notice that took me out comes with the pull.
    public func leaveGroup(_ gid: Int) async throws {
        try await api.leaveGroup(groupId: gid)
        _ = try? await sync.pull()
    }

    /// The owner ends the group; the notice that ends it comes with the pull.
    public func dissolveGroup(_ gid: Int) async throws {
        try await api.dissolveGroup(groupId: gid)
        _ = try? await sync.pull()
    }

    /// The member list and the group's info, from the server.
    public func refreshGroup(_ gid: Int) async throws {
        _ = try await members(groupId: gid)
        try store.saveGroup(try await api.groupInfo(groupId: gid))
    }

    @discardableResult
    public func updateGroup(_ request: UpdateGroupRequest) async throws -> GroupInfo {
        let info = try await api.updateGroup(request)
        try store.saveGroup(info)
        return info
    }

    @discardableResult
    public func invite(_ uids: [Int], to gid: Int) async throws -> GroupInfo {
        let info = try await api.invite(groupId: gid, userIds: uids)
        try store.saveGroup(info)
        return info
    }

    /// Removes a member (owner only); the notice comes with the pull.
    public func kick(_ uid: Int, from gid: Int) async throws {
        try await api.kick(groupId: gid, userId: uid)
        _ = try? await sync.pull()
    }

    /// v4: "Bob、Carol 未能加入" for the people a group's creation or an
    /// invitation left out, by display name and never saying why (a block
    /// stays private); nil when everyone asked for is in.
    public func notAddedNotice(_ info: GroupInfo, localizer l: Localizer) async -> String? {
        let names = await notAddedNames(info)
        return names.isEmpty ? nil : Self.notAddedWords(names, l)
    }

    /// The display names of the people a group's creation or an invitation left out.
    public func notAddedNames(_ info: GroupInfo) async -> [String] {
        await displayNames(of: (info.notAdded ?? []).map(\.userId))
    }

    /// "Bob、Carol 未能加入".
    public static func notAddedWords(_ names: [String], _ l: Localizer) -> String {
        l.string("group.notAdded", ["names": names.map(TerminalSanitizer.oneLine).joined(separator: l.string("group.listSeparator"))])
    }

    /// Display names of users by imUid: the cached profiles, else the
    /// server's (then cached); one neither knows keeps its imUid.
    func displayNames(of imUids: [String]) async -> [String] {
        let uids = imUids.compactMap(ConversationIDHelper.uid(fromImUid:))
        var known = (try? store.profiles(uids: uids)) ?? [:]
        let missing = uids.filter { known[$0] == nil }
        if !missing.isEmpty, let fetched = try? await api.profiles(missing) {
            try? store.saveProfiles(fetched)
            for p in fetched { known[p.uid] = p }
        }
        return imUids.map { id in ConversationIDHelper.uid(fromImUid: id).flatMap { known[$0]?.username } ?? id }
    }
}

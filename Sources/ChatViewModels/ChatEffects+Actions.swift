import ChatCore
import ChatStore
import ChatSync
import Foundation

/// What the user does in a chat: sending, revoking, retrying, clearing,
/// flash images, the group's commands, and the media files behind bubbles.
/// Each answers with events; the window follows the store by itself.
extension ChatEffects {
    // MARK: - Sending

    /// False when the text could not be queued (the input should keep it).
    public func sendText(_ text: String, in c: Conversation, emit: Emit) async -> Bool {
        do {
            guard try await session.sendQueue.sendText(text, to: c.id, receiveId: c.receiveId) != nil else { return true }
            await emit(.sent)
            return true
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
            return false
        }
    }

    /// A text with `@` mentions: only the names still in it count
    /// (`ChatState.mention`); with none left it goes as a plain text. False
    /// when it could not be queued.
    public func sendMention(_ text: String, mentioned: [String], atAll: Bool, in chat: ChatState, emit: Emit) async -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return true }
        let c = chat.conversation
        guard let mention = chat.mention(trimmed, mentioned: mentioned, atAll: atAll) else {
            return await sendText(trimmed, in: c, emit: emit)
        }
        do {
            try await session.sendQueue.enqueue(.mention(mention), to: c.id, receiveId: c.receiveId)
            await emit(.sent)
            return true
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
            return false
        }
    }

    /// A person shared into the chat (名片, PROTOCOL.md v4), named by account,
    /// display name or uid; the server fills in their name and picture.
    public func sendCard(of name: String, in c: Conversation, emit: Emit) async {
        do {
            let user = try await session.user(named: name)
            let card = CardPayload(userId: ConversationIDHelper.imUid(user.uid), name: user.username,
                                   account: user.account ?? "", avatar: user.avatar)
            try await session.sendQueue.enqueue(.card(card), to: c.id, receiveId: c.receiveId)
            await emit(.sent)
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
    }

    /// Files sent as `kind` (`OutgoingKinds`): prepared, then queued with
    /// their uploads. A file that cannot be sent comes back in words.
    public func send(_ kind: OutgoingKind, paths: [String], in c: Conversation, emit: Emit) async {
        await queue(emit) {
            let o = try kind.outgoing(paths, writeUpload: session.media.pendingUploadFile)
            _ = try await session.sendQueue.enqueue(o.content, to: c.id, receiveId: c.receiveId, uploads: o.uploads)
        }
    }

    // MARK: - Failed, revoked, cleared

    public func retry(messageId: String, emit: Emit) async {
        do { try await session.sendQueue.retry(clientMsgID: messageId) } catch { await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send"))) }
        await emit(.storeChanged)
    }

    /// Drops a failed message (it never reached the server); what its
    /// conversation queued after it is sent.
    public func discard(messageId: String, emit: Emit) async {
        do { _ = try await session.sendQueue.discard(clientMsgID: messageId) } catch { await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send"))) }
        await emit(.storeChanged)
    }

    /// Own messages only (the state shows it revoked first, `.revoking`);
    /// a refusal comes back with the server's reason and the window as stored.
    public func revoke(messageId: String, emit: Emit) async {
        do { try await session.sendQueue.revoke(clientMsgID: messageId) } catch { await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send"))) }
        await emit(.storeChanged)
    }

    /// A reply (v3) to `messageId`, its quote filled in from the message as
    /// shown (the server fills it again from its own copy). False when it
    /// could not be queued.
    public func sendReply(_ text: String, to messageId: String, mentioned: [String], atAll: Bool, in chat: ChatState,
                          emit: Emit) async -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return true }
        let c = chat.conversation
        var reply = QuotePayload(text: trimmed, quote: .init(clientMsgID: messageId))
        if let m = chat.messages.first(where: { $0.id == messageId }) { reply.quote = Self.quoted(m) }
        if let mention = chat.mention(trimmed, mentioned: mentioned, atAll: atAll) {
            reply.atUserIDs = mention.atUserIDs
            reply.atAll = mention.atAll
        }
        do {
            try await session.sendQueue.enqueue(.quote(reply), to: c.id, receiveId: c.receiveId)
            await emit(.sent)
            return true
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
            return false
        }
    }

    /// What a reply shows of `m` before the server's copy comes back.
    static func quoted(_ m: ChatMessage) -> QuotePayload.Quoted {
        var q = QuotePayload.Quoted(clientMsgID: m.id, seq: m.seq, sendID: m.senderId)
        q.contentType = IMMessageMapper.wireContent(for: m.content)?.contentType ?? ContentType.custom
        q.type = MessageKinds.kind(for: m.type).customType
        if let text = m.text { q.text = String(text.prefix(QuotePayload.quotedTextLimit)) }
        return q
    }

    /// Adds or takes back my `emoji` on a message (v3); the store, and so
    /// the bubble, takes the server's answer.
    public func react(messageId: String, emoji: String, on: Bool, in c: Conversation, emit: Emit) async {
        do { try await session.react(to: messageId, in: c.id, emoji: emoji, on: on) } catch { await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send"))) }
        await emit(.storeChanged)
    }

    /// Forwards (v3): each message sent again, in order, to each
    /// conversation, as an ordinary send of what `ChatMessage.forwarded`
    /// says. Pictures and files keep their objects: the server lets the new
    /// chat read them.
    public func forward(_ messages: [ChatMessage], to conversationIds: [String], emit: Emit) async {
        var sent = 0
        do {
            for id in conversationIds {
                for m in messages {
                    guard let content = m.forwarded else { continue }
                    try await session.sendQueue.enqueue(content, to: id)
                    sent += 1
                }
            }
            await emit(.told(.forwarded(messages: sent, chats: conversationIds.count)))
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
        await emit(.storeChanged)
    }

    /// A merged forward (v3, 聊天记录): the messages as one record, sent to
    /// each conversation; what they said is filled in here for the moment
    /// it is shown before the server's copy comes back.
    public func forwardMerged(_ messages: [ChatMessage], title: String, names: [String: String], to conversationIds: [String],
                              emit: Emit) async {
        let items = messages.map { m -> MergedPayload.Item in
            let wire = IMMessageMapper.wireContent(for: m.content)
            return MergedPayload.Item(conversationId: m.conversationId, clientMsgID: m.id, sendID: m.senderId,
                                      senderName: m.isMe ? session.credentials.username : names[m.senderId],
                                      contentType: wire?.contentType, content: wire?.content, sendTime: m.createTime)
        }
        do {
            for id in conversationIds { try await session.sendQueue.enqueue(.merged(MergedPayload(title: title, items: items)), to: id) }
            await emit(.told(.forwardedMerged(chats: conversationIds.count)))
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
        await emit(.storeChanged)
    }

    /// Keeps a message in my favourites (v3).
    public func addFavorite(messageId: String, in c: Conversation, emit: Emit) async {
        do {
            try await session.addFavorite(messageId, in: c.id)
            await emit(.told(.favorited))
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
    }

    /// Messages deleted for me only (v3): gone here and on my other devices.
    public func deleteForMe(messageIds: [String], in c: Conversation, emit: Emit) async {
        do {
            try await session.deleteForMe(messageIds, in: c.id)
            await emit(.told(.deletedForMe))
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
        await emit(.storeChanged)
    }

    /// My text's new words (v3); a refusal (too late, blank, too long)
    /// comes back with the server's reason and the message as it was.
    public func edit(messageId: String, to text: String, in c: Conversation, emit: Emit) async {
        do { try await session.edit(messageId, in: c.id, to: text) } catch { await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send"))) }
        await emit(.storeChanged)
    }

    /// After the flash image was shown: destroyed here, then `flash_viewed`.
    public func flashViewed(messageId: String, in c: Conversation, emit: Emit) async {
        try? session.destroyFlash(clientMsgID: messageId)
        do {
            try await session.sendQueue.enqueue(.flashViewed(targetClientMsgID: messageId), to: c.id)
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
        await emit(.storeChanged)
    }

    public func clearHistory(of c: Conversation, emit: Emit) async {
        do {
            try await session.clearHistory(c.id)
            await emit(.cleared)
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
    }

    /// Saves what is typed and not sent (blank removes the draft).
    public func saveDraft(_ text: String?, of c: Conversation) {
        try? session.setDraft(c.id, text)
    }

    /// The stored messages matching `query` in this chat, newest first.
    public func search(_ query: String, in c: Conversation, limit: Int = 50) -> [StoredMessage] {
        (try? reader.search(query, conversationId: c.id, limit: limit)) ?? []
    }

    // MARK: - The group's commands

    public enum GroupChange: Sendable, Equatable {
        case invite([String]), kick(String), kickMember(uid: Int), rename(String), notice(String), joinable(Bool)
    }

    /// One call to the server, then what it changed (a refusal comes back
    /// in words). `members` resolves a name to kick among the members first.
    /// An invitation that left people out says who, on the status line.
    public func group(_ command: GroupChange, in c: Conversation, members: [GroupMember], emit: Emit) async {
        guard let gid = c.groupId else { return }
        var notAdded: [String] = []
        do {
            switch command {
            case .invite(let names):
                var uids: [Int] = []
                for n in names { uids.append(try await session.user(named: n).uid) }
                notAdded = await session.notAddedNames(try await session.invite(uids, to: gid))
            case .kick(let name):
                var uid = members.first { $0.isNamed(name) }?.uid
                if uid == nil { uid = try await session.user(named: name).uid }
                try await session.kick(uid ?? 0, from: gid)
            case .kickMember(let uid):
                // Picked from the list, so no name can stand for someone else.
                try await session.kick(uid, from: gid)
            case .rename(let name): try await session.updateGroup(UpdateGroupRequest(groupId: gid, name: name))
            case .notice(let text): try await session.updateGroup(UpdateGroupRequest(groupId: gid, notice: text))
            case .joinable(let on): try await session.updateGroup(UpdateGroupRequest(groupId: gid, joinable: on))
            }
            _ = try? await session.sync.pull()
            try? await session.refreshGroup(gid)
            await emit(.groupChanged)
            if !notAdded.isEmpty { await emit(.told(.notAdded(notAdded))) }
        } catch {
            await emit(.told(.failed(Failure(error), diskFull: "error.diskFull.send")))
        }
    }

    // MARK: - Media files

    /// The cached file of an object, if it is there.
    public func cachedURL(_ key: String) -> URL? { session.media.localURL(for: key) }

    /// The cached file of one object key, fetched (re-signed when expired)
    /// first if needed.
    public func localFile(key: String, url: String, expireAt: Int) async throws -> URL {
        if let cached = session.media.localURL(for: key) { return cached }
        _ = try await session.media.prefetch(url: url, expireAt: expireAt, objectKey: key)
        guard let file = session.media.localURL(for: key) else { throw MediaUnavailable(key: key) }
        return file
    }

    /// The cached file of a message's (not flash) media.
    public func localFile(_ m: ChatMessage) async throws -> URL {
        guard let key = m.objectKey, !m.isFlash else { throw MediaUnavailable(key: m.objectKey ?? "") }
        return try await localFile(key: key, url: m.imageUrl ?? "", expireAt: m.urlExpireAt ?? 0)
    }

    /// A flash image's bytes, into memory only.
    public func flashBytes(_ m: ChatMessage) async throws -> Data {
        guard let key = m.objectKey else { throw MediaUnavailable(key: "") }
        return try await session.media.fetchUncached(objectKey: key)
    }

    /// A private file for something about to be uploaded (a recording, a
    /// picture prepared for sending).
    public func newUploadFile(_ data: Data = Data(), ext: String) throws -> URL {
        try session.media.pendingUploadFile(data, ext: ext)
    }
}

/// A media object that could not be brought into the cache.
public struct MediaUnavailable: Error, CustomStringConvertible {
    public let key: String
    public var description: String { "media \(key) is not available" }
}

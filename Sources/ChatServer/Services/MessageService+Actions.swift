import ChatCore
import Foundation

/// Acting on a message that is already sent (PROTOCOL.md v3): reactions,
/// edits and delete for me. A reaction or an edit changes the stored
/// message, keeps its seq, and tells every participant (the caller's other
/// devices too) with a `message_update`; a delete for me tells only the
/// caller's devices.
extension MessageService {
    /// Adds or takes back the caller's `emoji` on a message they can see;
    /// returns the message's reactions after it.
    func react(caller: Int, conversationId: String, clientMsgID: String, emoji: String, on: Bool) throws -> Reactions {
        guard Reactions.isValidEmoji(emoji) else {
            throw APIFailure.invalid("emoji must be one character of at most \(Reactions.maxEmojiBytes) bytes")
        }
        try Self.refuseSecret(conversationId, "reactions")
        let target = try ConversationService.target(of: conversationId, caller: caller)
        let (reactions, cursors) = try storage.write { tx -> (Reactions, [Int: Int]) in
            let msg = try self.visibleMessage(clientMsgID, in: conversationId, caller: caller, in: tx)
            try self.checkNotRefused(caller: caller, target: target, in: tx)
            guard !msg.revoked else { throw APIFailure.invalid("a revoked message takes no reactions") }
            guard Self.kind(of: msg).capabilities.contains(.reactable) else {
                throw APIFailure.invalid("a message of this kind takes no reactions")
            }
            var reactions = msg.reactions
            guard reactions.set(emoji, by: ConversationIDHelper.imUid(caller), on: on) else {
                throw APIFailure.invalid("a message takes at most \(Reactions.maxEmoji) different emoji")
            }
            // Idempotent: the same reaction again changes nothing and tells nobody.
            guard reactions != msg.reactions else { return (reactions, [:]) }
            try tx.messages.setReactions(id: msg.id, reactions)
            return (reactions, try self.announceUpdate(of: msg.id, target: target, caller: caller, in: tx))
        }
        notices.committed(cursors)
        if target.isRoom { pushRoom(conversationId, updated: [clientMsgID]) }
        return reactions
    }

    /// The sender's new text for their own text, mention or reply, within
    /// the edit window; returns the message as it now is.
    func edit(caller: Int, conversationId: String, clientMsgID: String, content: String) throws -> WireMessage {
        try Self.refuseSecret(conversationId, "edits")
        let target = try ConversationService.target(of: conversationId, caller: caller)
        let (message, cursors) = try storage.write { tx -> (WireMessage, [Int: Int]) in
            let msg = try self.visibleMessage(clientMsgID, in: conversationId, caller: caller, in: tx)
            guard msg.senderUid == caller else { throw APIFailure.forbidden("only the sender can edit a message") }
            try self.checkNotRefused(caller: caller, target: target, in: tx)
            guard Self.kind(of: msg).editable else {
                throw APIFailure.forbidden("only texts, mentions and replies can be edited")
            }
            guard !msg.revoked else { throw APIFailure.invalid("a revoked message cannot be edited") }
            let now = self.config.clock.nowMs()
            guard now - msg.sendTime <= self.config.editWindowSeconds * 1000 else {
                throw APIFailure(.editWindowPassed, "messages can be edited for \(self.config.editWindowSeconds) seconds after sending")
            }
            var payload = try self.validateContent(type: msg.contentType, content: content)
            var content = content
            if var reply = payload.quote {
                // A reply keeps what it quotes, as the server filled it in.
                guard let old = QuotePayload(jsonText: msg.content), reply.quote.clientMsgID == old.quote.clientMsgID else {
                    throw APIFailure.invalid("an edited reply must quote the same message")
                }
                reply.quote = old.quote
                payload = .quote(reply)
                content = reply.jsonText
            }
            let audience = try self.audience(of: conversationId, target: target, in: tx)
            // Mentions are checked as on a send; a member named anew is mentioned at the message's seq.
            let mentioned = try self.mentionedMembers(payload, caller: caller, target: target, audience: audience, in: tx)
            if content == msg.content { return (msg.wire, [:]) }
            if !mentioned.isEmpty { try tx.conversations.noteMention(conversationId, seq: msg.seq, uids: mentioned) }
            try tx.messages.edit(id: msg.id, content: content, editedAt: now)
            // The log forgets the old words as a revoke's does.
            try self.scrubLog(messageId: msg.id, in: tx)
            let cursors = try self.announceUpdate(of: msg.id, target: target, caller: caller, in: tx)
            return (try tx.messages.message(id: msg.id)!.wire, cursors)
        }
        notices.committed(cursors)
        if target.isRoom { pushRoom(conversationId, updated: [clientMsgID]) }
        return message
    }

    /// Deletes messages for the caller alone: never returned to them again
    /// (history, sync, the list's preview and unread count); their other
    /// devices get a `message_update` with `deletedForMe` and no content.
    /// Others keep the messages. Deleting one twice is a no-op.
    func deleteForMe(caller: Int, conversationId: String, clientMsgIDs: [String]) throws {
        guard (1...100).contains(clientMsgIDs.count) else { throw APIFailure.invalid("give 1-100 client_msg_ids") }
        _ = try ConversationService.target(of: conversationId, caller: caller)
        let cursors = try storage.write { tx -> [Int: Int] in
            let me = try self.conversations.member(conversationId, uid: caller, in: tx)
            var rows: [MessageRow] = []
            for id in Set(clientMsgIDs) {
                guard let msg = try tx.messages.message(in: conversationId, clientMsgID: id),
                      msg.seq > me.joinedSeq, msg.seq <= me.ceilingSeq else {
                    throw APIFailure.notFound("no message \(id.prefix(64)) in this conversation")
                }
                rows.append(msg)
            }
            rows.sort { $0.seq < $1.seq }
            try tx.messages.hide(rows.map(\.id), for: caller)
            try tx.syncLog.deleteEntries(of: caller, messageIds: rows.map(\.id))
            var cursors: [Int: Int] = [:]
            // A room's messages are in nobody's log: the caller's devices forget them locally.
            for row in rows where !ConversationIDHelper.isRoom(conversationId) {
                var gone = row.wire
                gone.content = ""
                gone.reactions = nil
                gone.deletedForMe = true
                cursors[caller] = try self.syncLog.append(.messageUpdate(gone), to: caller, messageId: nil, in: tx)
            }
            return cursors
        }
        notices.committed(cursors)
    }

    /// A message of the conversation the caller can see and may act on:
    /// within their history (after joining, before leaving) and, in a
    /// group, only while they are a member.
    func visibleMessage(_ clientMsgID: String, in conversationId: String, caller: Int,
                        in tx: any StorageTransaction) throws -> MessageRow {
        guard let (msg, me) = try inHistory(clientMsgID, of: conversationId, caller: caller, in: tx) else {
            throw APIFailure.notFound("no message \(clientMsgID.prefix(64)) in this conversation")
        }
        guard me.isActive else { throw APIFailure.forbidden("you are no longer a member of this group") }
        // Deleted for the caller: as gone for them as any other message they cannot see.
        guard !(try tx.messages.hiders(of: msg.id).contains(caller)) else {
            throw APIFailure.notFound("no message \(clientMsgID.prefix(64)) in this conversation")
        }
        return msg
    }

    /// The message with `clientMsgID` in `conversationId` if it is within the
    /// caller's history there (after they joined and cleared, before they
    /// left), with the caller's membership; nil otherwise. Not a member:
    /// the membership check throws.
    func inHistory(_ clientMsgID: String, of conversationId: String, caller: Int,
                   in tx: any StorageTransaction) throws -> (MessageRow, MemberRow)? {
        let me = try conversations.member(conversationId, uid: caller, in: tx)
        guard let msg = try tx.messages.message(in: conversationId, clientMsgID: clientMsgID),
              msg.seq > max(me.joinedSeq, me.clearedSeq), msg.seq <= me.ceilingSeq else { return nil }
        return (msg, me)
    }

    /// A `message_update` of the message as stored now to every participant
    /// but those who deleted it for themselves (their devices would store it
    /// again). `audience`: when the caller has it already.
    func announceUpdate(of messageId: Int64, target: ConversationService.Target, caller: Int, audience known: Audience? = nil,
                        in tx: any StorageTransaction) throws -> [Int: Int] {
        guard let updated = try tx.messages.message(id: messageId) else { return [:] }
        let audience = try known ?? audience(of: updated.conversationId, target: target, in: tx)
        let hiders = try tx.messages.hiders(of: messageId)
        var cursors: [Int: Int] = [:]
        // A room's updates are pushed after the commit (`pushRoomUpdates`), never logged.
        if case .present = audience { return [:] }
        if case .members(let uids) = audience {
            // Once, to the group's timeline (its readers' hidden rows keep it from those who deleted the message).
            let cursor = try syncLog.appendShared(.messageUpdate(updated.wire), to: updated.conversationId,
                                                  messageId: messageId, in: tx)
            for uid in uids where !hiders.contains(uid) { cursors[uid] = cursor }
            return cursors
        }
        for uid in audience.uids(sender: caller) where !hiders.contains(uid) {
            cursors[uid] = try syncLog.append(.messageUpdate(updated.wire), to: uid, messageId: messageId, in: tx)
        }
        return cursors
    }

    /// A room's messages as they are now (`updated`, by clientMsgID) and new
    /// ones (`newSeqs`, notices among them), pushed whole to whoever is present: rooms are in no
    /// sync log. Read after the commit, so they say what was committed.
    func pushRoom(_ conversationId: String, updated: [String], newSeqs: [Int] = []) {
        guard let rid = ConversationIDHelper.roomId(conversationId) else { return }
        let read = try? storage.read { tx -> ([RoomFrame], [Int]) in
            var frames: [RoomFrame] = []
            for seq in newSeqs {
                if let m = try tx.messages.messages(in: conversationId, after: seq - 1, limit: 1, for: nil).first, m.seq == seq {
                    frames.append(RoomFrame(frame: .room(m.wire), ref: .message(m.id)))
                }
            }
            for id in updated {
                if let m = try tx.messages.message(in: conversationId, clientMsgID: id) {
                    frames.append(RoomFrame(frame: .roomUpdate(m.wire), ref: .update(m.id)))
                }
            }
            return (frames, try tx.rooms.present(rid))
        }
        if let (frames, present) = read { notices.roomPushed(frames, to: present) }
    }

    /// A single chat's peer who refuses the caller's messages (a block, or
    /// friends only) refuses their reactions and edits too.
    func checkNotRefused(caller: Int, target: ConversationService.Target, in tx: any StorageTransaction) throws {
        if case .single(let peer) = target, try tx.people.refuses(receiver: peer, sender: caller) {
            throw APIFailure(.blocked, "this user does not take your messages")
        }
    }
}

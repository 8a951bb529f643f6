import ChatCore
import ChatSync
import Foundation

/// The fake server's messages: sending (one-to-one and group), validation,
/// revoke and history pages.
extension FakeServerState {
    // MARK: - Messages

    /// Stores a message with the conversation's next seq and logs it to both
    /// members, or to a group's current members (`peer` nil).
    @discardableResult
    mutating func append(_ id: String, sender: Int, peer: Int?, clientMsgID: String, contentType: Int, content: String,
                         isControl: Bool) throws -> Message {
        if let peer { try ensure(id, caller: sender, peer: peer) }
        nextServerMsg += 1
        let seq = conversations[id]!.messages.count + 1
        let wire = WireMessage(serverMsgID: "m_fake_\(nextServerMsg)", clientMsgID: clientMsgID, conversationId: id, seq: seq,
                               sendID: ConversationIDHelper.imUid(sender),
                               recvID: peer.map(ConversationIDHelper.imUid) ?? id,
                               contentType: contentType, content: content, sendTime: tick())
        let message = Message(wire: wire, senderUid: sender, isControl: isControl)
        conversations[id]!.messages.append(message)
        let audience = conversations[id]!.audience
        // A new message shows a hidden conversation again; sending reads what came before.
        for uid in audience {
            guard var m = conversations[id]!.members[uid] else { continue }
            m.hidden = m.hidden && m.clearedSeq >= seq
            if uid == sender && !isControl { m.readSeq = max(m.readSeq, seq) }
            conversations[id]!.members[uid] = m
        }
        for uid in audience { log(.message(wire), to: uid) }
        return message
    }

    mutating func send(caller: Int, _ r: SendMessageRequest) throws -> SendMessageResponse {
        let id = r.recvID
        let peer = try access(id, caller: caller)
        guard !r.clientMsgId.isEmpty, r.clientMsgId.count <= 128 else {
            throw Self.refuse(.invalidRequest, "clientMsgId must be 1-128 characters")
        }
        let payload = try validate(type: r.contentType, content: r.content)
        if peer == nil { try checkGroupSend(id, caller: caller, payload: payload, receiveId: r.receiveId) }
        let mentioned = try mentionedMembers(payload, caller: caller, in: id, peer: peer)
        if let receiveId = r.receiveId, !receiveId.isEmpty, let peer {
            guard let rid = Int(receiveId) else { throw Self.refuse(.invalidRequest, "receive_id must be a decimal number") }
            guard let reply = replies[rid], let owner = signals[reply.signalId]?.owner,
                  Set([reply.from, owner]) == Set([caller, peer]) else {
                throw Self.refuse(.forbidden, "receive_id \(receiveId) is not a reply between you two")
            }
        }
        // A retry of the caller's own send gets the first answer; the peer's
        // clientMsgID is not to be taken over.
        for conv in conversations.values {
            for m in conv.messages where m.wire.clientMsgID == r.clientMsgId {
                if m.senderUid == caller { return Self.response(m.wire) }
                if conv.id == id { throw Self.refuse(.conflict, "clientMsgId is already used by another message in this conversation") }
            }
        }
        var flashTarget: Message?
        if case .flashViewed(let targetId) = payload {
            guard let target = conversations[id]?.messages.first(where: { $0.wire.clientMsgID == targetId }),
                  case .flashImage = IMMessageMapper.decode(contentType: target.wire.contentType, content: target.wire.content).1
            else { throw Self.refuse(.notFound, "no flash image \(targetId.prefix(64)) in this conversation") }
            guard target.senderUid != caller else {
                throw Self.refuse(.forbidden, "only the receiver of a flash image can mark it viewed")
            }
            flashTarget = target
        }
        let keys = MessageKinds.objectKeys(in: payload)
        for key in keys where !mayRead(key, uid: caller) {
            throw Self.refuse(.forbidden, "object \(key.prefix(120)) is not yours to send")
        }
        let message = try append(id, sender: caller, peer: peer, clientMsgID: r.clientMsgId, contentType: r.contentType,
                                 content: r.content, isControl: flashTarget != nil)
        for key in keys { media[key]?.grants.insert(Grant(conversationId: id, seq: message.wire.seq)) }
        for uid in mentioned { conversations[id]!.members[uid]?.mentionSeq = message.wire.seq }
        if let target = flashTarget, !target.wire.flashViewed {
            let index = target.wire.seq - 1
            conversations[id]!.messages[index].wire.flashViewed = true
            if case .flashImage(let p) = IMMessageMapper.decode(contentType: target.wire.contentType, content: target.wire.content).1 {
                media[p.objectKey]?.destroyed = true
            }
            let updated = conversations[id]!.messages[index].wire
            scrubLogs(updated)
            for uid in conversations[id]!.audience { log(.messageUpdate(updated), to: uid) }
        }
        return Self.response(message.wire)
    }

    static func response(_ w: WireMessage) -> SendMessageResponse {
        SendMessageResponse(serverMsgID: w.serverMsgID, clientMsgID: w.clientMsgID, sendTime: w.sendTime, seq: w.seq)
    }

    /// Checks content against its type, as the server does.
    func validate(type: Int, content: String) throws -> MessageContent {
        switch type {
        case ContentType.text:
            guard !content.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
                throw Self.refuse(.invalidRequest, "content must not be empty")
            }
            guard content.count <= maxTextCharacters else {
                throw Self.refuse(.tooLarge, "text is longer than \(maxTextCharacters) characters")
            }
            return .text(content)
        case ContentType.custom:
            guard let obj = JSONObject(jsonText: content), let t = obj.string("type"), !t.isEmpty else {
                throw Self.refuse(.invalidRequest, "content must be a JSON object with a string type")
            }
            let (_, decoded) = IMMessageMapper.decode(contentType: type, content: content)
            if MessageKinds.kind(customType: t) != nil, case .unknown = decoded {
                throw Self.refuse(.invalidRequest, "custom \(t) payload is missing fields or has wrong types")
            }
            return decoded
        case ContentType.mention:
            let (_, decoded) = IMMessageMapper.decode(contentType: type, content: content)
            guard case .mention(let p) = decoded, !p.text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
                throw Self.refuse(.invalidRequest, "content must be a mention with a text")
            }
            guard p.text.count <= maxTextCharacters else {
                throw Self.refuse(.tooLarge, "text is longer than \(maxTextCharacters) characters")
            }
            return decoded
        case ContentType.revokeNotice:
            throw Self.refuse(.invalidRequest, "revoke notices are made by the server; use /chat/message/revoke")
        default:
            throw Self.refuse(.invalidRequest, "unknown contentType \(type)")
        }
    }

    mutating func revoke(caller: Int, _ id: String, clientMsgID: String) throws -> Int {
        let peer = try access(id, caller: caller)
        guard try member(id, caller).leftSeq == nil else { throw Self.refuse(.forbidden, "you are no longer in this group") }
        guard let index = conversations[id]!.messages.firstIndex(where: { $0.wire.clientMsgID == clientMsgID }) else {
            throw Self.refuse(.notFound, "no message \(clientMsgID.prefix(64)) in this conversation")
        }
        let msg = conversations[id]!.messages[index]
        let byOwner = conversations[id]!.group?.owner == caller
        guard msg.senderUid == caller || byOwner else {
            throw Self.refuse(.forbidden, "only the sender (or the group's owner) can revoke a message")
        }
        guard !ContentType.isGroupNotice(msg.wire.contentType) else { throw Self.refuse(.invalidRequest, "notices cannot be revoked") }
        if msg.wire.revoked { return msg.noticeSeq ?? msg.wire.seq }
        guard byOwner || nowMs - msg.wire.sendTime <= revokeWindowSeconds * 1000 else {
            throw Self.refuse(.revokeWindowPassed, "messages can be revoked for \(revokeWindowSeconds) seconds after sending")
        }
        var fields = ["clientMsgID": clientMsgID]
        if peer == nil { fields["revokerID"] = ConversationIDHelper.imUid(caller) }
        let body = String(decoding: try JSONEncoder().encode(fields), as: UTF8.self)
        let notice = try append(id, sender: caller, peer: peer, clientMsgID: "revoke:" + clientMsgID,
                                contentType: ContentType.revokeNotice, content: body, isControl: true)
        conversations[id]!.messages[index].wire.revoked = true
        conversations[id]!.messages[index].wire.content = ""
        conversations[id]!.messages[index].noticeSeq = notice.wire.seq
        // Only the uploader can still read what was in a revoked message.
        let grant = Grant(conversationId: id, seq: msg.wire.seq)
        for key in MessageKinds.objectKeys(in: IMMessageMapper.decode(contentType: msg.wire.contentType, content: msg.wire.content).1) {
            media[key]?.grants.remove(grant)
        }
        let updated = conversations[id]!.messages[index].wire
        scrubLogs(updated)
        for uid in conversations[id]!.audience { log(.messageUpdate(updated), to: uid) }
        return notice.wire.seq
    }

    func history(caller: Int, _ id: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) throws -> HistoryResponse {
        _ = try access(id, caller: caller)
        guard (1...100).contains(limit) else { throw Self.refuse(.invalidRequest, "limit must be 1-100") }
        let m = try member(id, caller)
        let floor = max(m.clearedSeq, m.joinedSeq), ceiling = m.leftSeq ?? Int.max
        let all = conversations[id]!.messages.map(\.wire).filter { $0.seq <= ceiling }
        if let after = afterSeq {
            let rows = all.filter { $0.seq > max(after, floor) }
            return HistoryResponse(messages: Array(rows.prefix(limit)), hasMore: rows.count > limit)
        }
        let rows = all.filter { $0.seq > floor && $0.seq < (beforeSeq ?? Int.max) }
        return HistoryResponse(messages: Array(rows.suffix(limit)), hasMore: rows.count > limit)
    }
}

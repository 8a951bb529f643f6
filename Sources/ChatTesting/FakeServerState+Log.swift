import ChatCore
import ChatSync
import Foundation

/// The fake server's sync log, media objects and signals.
extension FakeServerState {
    // MARK: - Sync log

    mutating func log(_ event: SyncEvent, to uid: Int) {
        lastCursor += 1
        logs[uid, default: []].append(LogEntry(cursor: lastCursor, event: event))
        grownLogs.insert(uid)
    }

    /// Replaces every logged copy of a message with its current state, so a
    /// revoked text is not kept in anyone's log.
    mutating func scrubLogs(_ updated: WireMessage) {
        func same(_ m: WireMessage) -> Bool { m.conversationId == updated.conversationId && m.clientMsgID == updated.clientMsgID }
        for uid in logs.keys {
            for i in logs[uid]!.indices {
                switch logs[uid]![i].event {
                case .message(let m) where same(m): logs[uid]![i].event = .message(updated)
                case .messageUpdate(let m) where same(m): logs[uid]![i].event = .messageUpdate(updated)
                case .conversation(var s) where s.lastMessage.map(same) == true:
                    s.lastMessage = updated
                    logs[uid]![i].event = .conversation(s)
                default: break
                }
            }
        }
    }

    func syncPage(caller: Int, since: Int, limit: Int) throws -> SyncResponse {
        guard since >= 0 else { throw Self.refuse(.invalidRequest, "since must not be negative") }
        guard (1...1000).contains(limit) else { throw Self.refuse(.invalidRequest, "limit must be 1-1000") }
        if since > 0 && since < logFloor {
            throw Self.refuse(.cursorExpired, "cursor \(since) is older than the kept log; reload conversations")
        }
        let after = (logs[caller] ?? []).filter { $0.cursor > since }
        let page = after.prefix(limit)
        return SyncResponse(events: page.map(\.event), cursor: page.last?.cursor ?? since, hasMore: after.count > limit)
    }

    /// Drops every event logged so far: older cursors get 410.
    mutating func expireLog() {
        for uid in logs.keys { logs[uid] = [] }
        logFloor = lastCursor + 1
    }

    // MARK: - Media

    static let imageTypes = Set(MediaType.imageExtensions.keys)
    static let audioTypes: [String: String] = ["audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/ogg": "ogg", "audio/wav": "wav"]

    mutating func upload(caller: Int, data: Data, contentType: String, kind: String) throws -> UploadResponse {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let folder: String, ext: String
        switch kind {
        case "chat_image":
            guard Self.imageTypes.contains(type) else {
                throw Self.refuse(.unsupportedMedia, "Content-Type \(type.prefix(60)) is not allowed for \(kind)")
            }
            folder = "image"; ext = MediaType.fileExtension(for: type)
        case "chat_audio":
            guard let known = Self.audioTypes[type] else {
                throw Self.refuse(.unsupportedMedia, "Content-Type \(type.prefix(60)) is not allowed for \(kind)")
            }
            folder = "audio"; ext = known
        case "chat_file":
            folder = "file"; ext = "bin"
        default:
            throw Self.refuse(.invalidRequest, "type must be chat_image, chat_audio or chat_file")
        }
        guard data.count <= maxMediaBytes else { throw Self.refuse(.tooLarge, "media is larger than \(maxMediaBytes) bytes") }
        guard !data.isEmpty else { throw Self.refuse(.invalidRequest, "empty upload") }
        if folder == "image", MediaProbe.probe(data)?.contentType != type {
            throw Self.refuse(.unsupportedMedia, "the bytes are not \(type)")
        }
        if folder == "audio", MediaProbe.probe(data)?.kind != "chat_audio" {
            throw Self.refuse(.unsupportedMedia, "the bytes are not \(type)")
        }
        let day = Self.utcDay(tick())
        let key = "chat/\(folder)/\(day)/\(UUID().uuidString.lowercased()).\(ext)"
        media[key] = MediaObject(data: data, contentType: folder == "file" ? "application/octet-stream" : type, uploader: caller)
        return UploadResponse(objectKey: key, size: data.count)
    }

    static func utcDay(_ ms: Int) -> String {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let d = cal.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(ms) / 1000))
        return String(format: "%04d/%02d/%02d", d.year!, d.month!, d.day!)
    }

    func mayRead(_ key: String, uid: Int) -> Bool {
        guard let o = media[key], !o.destroyed else { return false }
        return o.uploader == uid || o.grants.contains { conversations[$0.conversationId]?.members[uid] != nil }
    }

    func sign(caller: Int, keys: [String]) throws -> SignResponse {
        guard keys.count <= 100 else { throw Self.refuse(.invalidRequest, "at most 100 object_keys per call") }
        let exp = nowMs / 1000 + signedURLSeconds
        var urls: [String: String] = [:]
        for key in keys where mayRead(key, uid: caller) {
            urls[key] = "\(baseURL)/media/object/\(key)?exp=\(exp)&sig=\(Self.signature(key: key, exp: exp))"
        }
        return SignResponse(urls: urls, expireAt: exp)
    }

    /// FNV-1a of key and expiry: enough to tell a URL this fake signed from
    /// one it did not.
    static func signature(key: String, exp: Int) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in (key + "\n" + String(exp)).utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }

    func download(_ url: String, limit: Int) throws -> Data {
        let prefix = baseURL + "/media/object/"
        guard url.hasPrefix(prefix) else { throw APIError.badResponse("refusing to download media from outside \(baseURL)") }
        let rest = url.dropFirst(prefix.count)
        let parts = rest.split(separator: "?", maxSplits: 1)
        let key = String(parts.first ?? "")
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { query[String(kv[0])] = String(kv[1]) }
        }
        guard let exp = query["exp"].flatMap(Int.init), let sig = query["sig"], sig == Self.signature(key: key, exp: exp) else {
            throw Self.refuse(.forbidden, "bad signature")
        }
        guard exp >= nowMs / 1000 else { throw Self.refuse(.forbidden, "the link has expired") }
        guard let o = media[key], !o.destroyed else { throw Self.refuse(.notFound, "no such object") }
        guard o.data.count <= limit else { throw APIError.badResponse("the object is larger than \(limit) bytes") }
        return o.data
    }

    // MARK: - Signals

    mutating func createSignal(caller: Int, _ content: String) throws -> Int {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw Self.refuse(.invalidRequest, "content must not be empty")
        }
        guard content.count <= maxTextCharacters else { throw Self.refuse(.tooLarge, "signal is too long") }
        let id = (signals.keys.max() ?? 0) + 1
        signals[id] = Signal(owner: caller, content: content)
        return id
    }

    mutating func replySignal(caller: Int, signalId: Int, content: String) throws -> String {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw Self.refuse(.invalidRequest, "content must not be empty")
        }
        guard content.count <= maxTextCharacters else { throw Self.refuse(.tooLarge, "reply is too long") }
        guard let signal = signals[signalId] else { throw Self.refuse(.notFound, "no such signal") }
        guard signal.owner != caller else { throw Self.refuse(.forbidden, "you cannot reply to your own signal") }
        let id = (replies.keys.max() ?? 0) + 1
        replies[id] = Reply(signalId: signalId, from: caller, content: content)
        return String(id)
    }

    func inbox(caller: Int) -> [SignalInboxItem] {
        replies.sorted { $0.key > $1.key }.compactMap { id, r in
            guard let signal = signals[r.signalId], signal.owner == caller, let from = users[r.from] else { return nil }
            return SignalInboxItem(receiveId: String(id), signalId: r.signalId, signalContent: signal.content,
                                   replyContent: r.content, from: from.info, isImOpened: r.isImOpened)
        }
    }

    mutating func openIM(caller: Int, receiveId: String) throws {
        guard let id = Int(receiveId) else { throw Self.refuse(.invalidRequest, "receive_id must be a decimal number") }
        guard let reply = replies[id], let owner = signals[reply.signalId]?.owner else {
            throw Self.refuse(.notFound, "no such signal reply")
        }
        guard owner == caller else { throw Self.refuse(.forbidden, "that reply is not to your signal") }
        replies[id]!.isImOpened = true
        let conv = ConversationIDHelper.make(myUid: owner, targetUid: reply.from)
        try ensure(conv, caller: owner, peer: reply.from)
        for uid in conversations[conv]!.members.keys { conversations[conv]!.members[uid]!.isImOpened = true }
        log(.conversation(try summary(conv, for: caller)), to: caller)
    }
}

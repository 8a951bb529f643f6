import ChatCore

/// A group-commit batch's plain sends written together, on a
/// backend where each statement is a round trip (`SendBatchRepository`):
/// five statements for the whole batch instead of about ten per send.
/// What it leaves, `writeSend` writes one job at a time, as on SQLite.
extension MessageService {
    /// An output for each job written here, nil for each left to
    /// `writeSend`: media, flash receipts, mentions, secret sends, a group the sender is
    /// not in, an id
    /// another sender's message holds, the first message to someone who
    /// does not exist (refused there), a receiver who refuses the sender (the
    /// job then fails there with `blocked`), and a second use of an id within the
    /// batch (it then finds the first one stored).
    func writeSendBatch(_ jobs: [SendJob], in tx: any StorageTransaction) throws -> [SendWrite?] {
        var out = [SendWrite?](repeating: nil, count: jobs.count)
        guard let batch = tx.sendBatch else { return out }
        var candidates: [Int] = []
        var seen = Set<String>()
        for (i, job) in jobs.enumerated() {
            // A room's sends are pushed, not logged: `writeSend` writes them.
            // A secret send's checks (its devices, its blobs, its timer) are `writeSend`'s.
            guard Self.isPlain(job.payload), !job.target.isRoom, job.secret == nil else { continue }
            let id = job.request.clientMsgId
            guard seen.insert("s\(job.caller) \(id)").inserted, seen.insert("c\(job.request.recvID) \(id)").inserted else { continue }
            candidates.append(i)
        }
        guard !candidates.isEmpty else { return out }
        // A group's members, read once for all its sends: a sender who is
        // not among them is left to `writeSend`, which refuses them.
        let groups = Set(candidates.compactMap { i -> String? in
            if case .group = jobs[i].target { return jobs[i].request.recvID } else { return nil }
        })
        let members = groups.isEmpty ? [:] : try batch.activeMembers(of: groups.sorted())
        candidates.removeAll { i in
            guard case .group = jobs[i].target else { return false }
            return !(members[jobs[i].request.recvID]?.contains(jobs[i].caller) ?? false)
        }
        let pairs = candidates.compactMap { i -> (sender: Int, receiver: Int)? in
            guard case .single(let peer) = jobs[i].target else { return nil }
            return (sender: jobs[i].caller, receiver: peer)
        }
        let refused = try (pairs.isEmpty ? [] : batch.refused(pairs)).map { "\($0.sender) \($0.receiver)" }
        if !refused.isEmpty {
            let skip = Set(refused)
            candidates.removeAll { i in
                guard case .single(let peer) = jobs[i].target else { return false }
                return skip.contains("\(jobs[i].caller) \(peer)")
            }
            guard !candidates.isEmpty else { return out }
        }

        // The rule `writeSend` applies, for all at once: a retry is answered
        // with the stored message; an id the peer holds is the job's own error.
        let taken = try batch.messages(matching: candidates.map {
            (clientMsgID: jobs[$0].request.clientMsgId, sender: jobs[$0].caller, conversationId: jobs[$0].request.recvID)
        })
        var fresh: [Int] = []
        for i in candidates {
            let job = jobs[i], id = job.request.clientMsgId
            let matches = taken.filter {
                $0.clientMsgID == id && ($0.senderUid == job.caller || $0.conversationId == job.request.recvID)
            }
            if let existing = matches.first(where: { $0.senderUid == job.caller }) {
                out[i] = SendWrite(row: existing, cursors: [:], isNew: false, destroyedKey: nil)
            } else if matches.isEmpty {
                fresh.append(i)
            }
        }

        var counts: [String: Int] = [:]
        var order: [String] = []
        for i in fresh {
            let conversationId = jobs[i].request.recvID
            if counts[conversationId] == nil { order.append(conversationId) }
            counts[conversationId, default: 0] += 1
        }
        guard !order.isEmpty else { return out }
        var nextSeq: [String: Int] = [:]
        func take(_ ids: [String]) throws {
            for (conversationId, maxSeq) in try batch.takeSeqs(ids.map { (conversationId: $0, count: counts[$0] ?? 0) }) {
                nextSeq[conversationId] = maxSeq - (counts[conversationId] ?? 0) + 1
            }
        }
        try take(order)
        // A single chat's first messages make it here, as `ConversationService.ensure`
        // does for the first of them one by one: a burst of new chats (every
        // user's first message after a start) otherwise went one send at a
        // time, each under the write lock the whole batch waits for.
        var newChats: [NewSingleChat] = []
        var newIds = Set<String>()
        for i in fresh where nextSeq[jobs[i].request.recvID] == nil {
            let job = jobs[i]
            guard case .single(let peer) = job.target, newIds.insert(job.request.recvID).inserted else { continue }
            newChats.append(NewSingleChat(id: job.request.recvID, caller: job.caller, peer: peer,
                                          members: ConversationService.firstMembers(caller: job.caller, peer: peer)))
        }
        if !newChats.isEmpty {
            let made = try batch.createSingles(newChats, createdAt: config.clock.nowMs())
            try take(order.filter { made.contains($0) })
        }
        let now = config.clock.nowMs()
        var rows: [MessageRow] = []
        var audiences: [Audience] = []
        var written: [Int] = []
        for i in fresh {
            let job = jobs[i], conversationId = job.request.recvID
            // Without a seq it is a group or chat that could not be made: its jobs go alone.
            guard let seq = nextSeq[conversationId] else { continue }
            let audience: Audience
            switch job.target {
            case .single(let peer): audience = .peer(peer)
            case .group: audience = .members(members[conversationId] ?? [])
            case .room: continue
            }
            nextSeq[conversationId] = seq + 1
            rows.append(Self.newRow(conversationId: conversationId, sender: job.caller, to: audience,
                                    clientMsgID: job.request.clientMsgId, contentType: job.request.contentType,
                                    content: job.request.content, isControl: false, seq: seq, sendTime: now,
                                    serverMsgID: job.serverMsgID))
            audiences.append(audience)
            written.append(i)
        }
        guard !rows.isEmpty else { return out }

        let ids = try batch.insert(rows)
        try batch.noteAppended(Self.memberNotes(rows, audiences: audiences))
        // A single chat's message goes to both logs, a group's once to its timeline.
        var entries: [LogEntry] = []
        var firstEntry: [Int] = []
        entries.reserveCapacity(rows.count * 2)
        for k in rows.indices {
            rows[k].id = ids[k]
            let body = try SyncLogService.encode(.message(rows[k].wire))
            firstEntry.append(entries.count)
            switch audiences[k] {
            case .peer(let peer):
                entries.append(LogEntry(uid: rows[k].senderUid, messageId: ids[k], body: body))
                entries.append(LogEntry(uid: peer, messageId: ids[k], body: body))
            case .members:
                entries.append(LogEntry(uid: 0, messageId: ids[k], body: body, conversationId: rows[k].conversationId))
            case .present:
                break
            }
        }
        let logged = try batch.append(entries, createdAt: now)
        for (k, i) in written.enumerated() {
            var cursors: [Int: Int] = [:]
            switch audiences[k] {
            case .peer:
                for entry in [firstEntry[k], firstEntry[k] + 1] {
                    cursors[entries[entry].uid] = max(cursors[entries[entry].uid] ?? 0, logged[entry])
                }
            case .members(let uids):
                for uid in uids { cursors[uid] = logged[firstEntry[k]] }
            case .present:
                break
            }
            out[i] = SendWrite(row: rows[k], cursors: cursors, isNew: true, destroyedKey: nil)
        }
        return out
    }

    /// A payload whose send is the message and its log entries, nothing
    /// else: no receipt to apply, nobody mentioned, no media to grant, no
    /// quote or card to fill in from the server's copy.
    static func isPlain(_ payload: MessageContent) -> Bool {
        payload.flashViewedTarget == nil && payload.mention == nil && payload.quote == nil && payload.merged == nil
            && payload.card == nil
            && MessageKinds.objectKeys(in: payload).isEmpty
    }

    /// What `noteAppended` does send by send, folded per member row: the
    /// chat shows again unless cleared past the batch's newest seq in it,
    /// and each sender has read up to their own newest. A group's hidden
    /// members are one note with uid 0 (`MemberAppendNote.everyHidden`).
    static func memberNotes(_ rows: [MessageRow], audiences: [Audience]) -> [MemberAppendNote] {
        var shown: [String: Int] = [:]
        var read: [String: Int] = [:]
        var members: [(conversationId: String, uid: Int)] = []
        var listed = Set<String>()
        for (row, audience) in zip(rows, audiences) {
            shown[row.conversationId] = max(shown[row.conversationId] ?? 0, row.seq)
            let senderKey = "\(row.senderUid) \(row.conversationId)"
            read[senderKey] = max(read[senderKey] ?? 0, row.seq)
            let others: [Int]
            switch audience {
            case .peer(let peer): others = [peer]
            case .members: others = [MemberAppendNote.everyHidden]
            case .present: others = []
            }
            for uid in [row.senderUid] + others where listed.insert("\(uid) \(row.conversationId)").inserted {
                members.append((conversationId: row.conversationId, uid: uid))
            }
        }
        return members.map { m in
            MemberAppendNote(conversationId: m.conversationId, uid: m.uid, shownSeq: shown[m.conversationId] ?? 0,
                             readSeq: read["\(m.uid) \(m.conversationId)"])
        }
    }
}

import ChatServer
import ChatCore
import Foundation
import PostgresNIO

// Conversations, messages and the sync log over one PostgreSQL transaction.

struct PostgresConversationRepository: ConversationRepository {
    let conn: PostgresLink

    func exists(_ id: String) throws -> Bool {
        try conn.scalar("SELECT 1 FROM conversation WHERE id = \(id)", as: Int.self) != nil
    }

    func create(_ id: String, uidLow: Int, uidHigh: Int, createdAt: Int) throws {
        try conn.execute("""
            INSERT INTO conversation(id, uid_low, uid_high, max_seq, created_at) VALUES (\(id), \(uidLow), \(uidHigh), 0, \(createdAt))
            ON CONFLICT (id) DO NOTHING
            """)
    }

    func addMember(_ id: String, uid: Int, hidden: Bool) throws {
        try conn.execute("""
            INSERT INTO member(conversation_id, uid, hidden) VALUES (\(id), \(uid), \(hidden)) ON CONFLICT DO NOTHING
            """)
    }

    func member(_ id: String, uid: Int) throws -> MemberRow? {
        try conn.query("\(unescaped: Self.memberColumns) WHERE conversation_id = \(id) AND uid = \(uid)").first.map(Self.member)
    }

    func update(_ m: MemberRow) throws {
        try conn.execute("""
            UPDATE member SET is_pinned = \(m.isPinned), read_seq = \(m.readSeq), cleared_seq = \(m.clearedSeq),
                hidden = \(m.hidden), is_im_opened = \(m.isImOpened), is_muted = \(m.isMuted), mention_seq = \(m.mentionSeq),
                joined_seq = \(m.joinedSeq), joined_at = \(m.joinedAt), left_seq = \(m.leftSeq)
            WHERE conversation_id = \(m.conversationId) AND uid = \(m.uid)
            """)
    }

    func maxSeq(of id: String) throws -> Int? {
        try conn.scalar("SELECT max_seq FROM conversation WHERE id = \(id)")
    }

    func createdAt(of id: String) throws -> Int? {
        try conn.scalar("SELECT created_at FROM conversation WHERE id = \(id)")
    }

    func takeNextSeq(_ id: String) throws -> Int? {
        // The row stays locked until the transaction ends: another node's
        // send into this conversation waits for the commit (or rollback).
        try conn.scalar("UPDATE conversation SET max_seq = max_seq + 1 WHERE id = \(id) RETURNING max_seq")
    }

    func noteAppended(_ id: String, seq: Int, sender: Int, senderRead: Bool) throws {
        try conn.execute("""
            UPDATE member SET hidden = hidden AND (cleared_seq >= \(seq) OR left_seq IS NOT NULL),
                read_seq = CASE WHEN uid = \(sender) AND \(senderRead) THEN GREATEST(read_seq, \(seq)) ELSE read_seq END
            WHERE conversation_id = \(id) AND (hidden OR (uid = \(sender) AND \(senderRead) AND read_seq < \(seq)))
            """)
    }

    func join(_ id: String, uid: Int, joinedSeq: Int, joinedAt: Int) throws {
        try conn.execute("""
            INSERT INTO member(conversation_id, uid, hidden, joined_seq, joined_at) VALUES (\(id), \(uid), FALSE, \(joinedSeq), \(joinedAt))
            ON CONFLICT (conversation_id, uid) DO UPDATE SET hidden = FALSE, left_seq = NULL,
                joined_seq = EXCLUDED.joined_seq, joined_at = EXCLUDED.joined_at
            """)
    }

    func activeMembers(_ id: String) throws -> [Int] {
        try conn.query("""
            SELECT uid FROM member WHERE conversation_id = \(id) AND left_seq IS NULL ORDER BY joined_at, uid
            """).map { try $0.decode(Int.self) }
    }

    func activeMembers(_ id: String, afterUid uid: Int, limit: Int) throws -> [MemberRow] {
        try conn.query("""
            \(unescaped: Self.memberColumns) WHERE conversation_id = \(id) AND left_seq IS NULL AND uid > \(uid)
            ORDER BY uid LIMIT \(limit)
            """).map(Self.member)
    }

    func readStates(_ id: String) throws -> [MemberReadState] {
        try conn.query("""
            SELECT uid, read_seq, joined_seq FROM member WHERE conversation_id = \(id) AND left_seq IS NULL
            """).map { row in
            let (uid, read, joined) = try row.decode((Int, Int, Int).self)
            return MemberReadState(uid: uid, readSeq: read, joinedSeq: joined)
        }
    }

    func activeMemberCount(_ id: String) throws -> Int {
        try conn.scalar("SELECT COUNT(*) FROM member WHERE conversation_id = \(id) AND left_seq IS NULL") ?? 0
    }

    func noteMention(_ id: String, seq: Int, uids: [Int]) throws {
        try conn.execute("""
            UPDATE member SET mention_seq = GREATEST(mention_seq, \(seq))
            WHERE conversation_id = \(id) AND uid = ANY(\(uids)) AND left_seq IS NULL
            """)
    }

    func visibleConversations(of uid: Int) throws -> [String] {
        try conn.query("SELECT conversation_id FROM member WHERE uid = \(uid) AND NOT hidden").map { try $0.decode(String.self) }
    }

    func unhide(_ id: String, uid: Int) throws {
        try conn.execute("UPDATE member SET hidden = FALSE WHERE conversation_id = \(id) AND uid = \(uid)")
    }

    func markOpened(_ id: String) throws {
        try conn.execute("UPDATE member SET is_im_opened = TRUE WHERE conversation_id = \(id)")
    }

    func secretPeers(of uid: Int) throws -> [Int] {
        try conn.query("""
            SELECT CASE WHEN uid_low = \(uid) THEN uid_high ELSE uid_low END FROM conversation
            WHERE (uid_low = \(uid) OR uid_high = \(uid)) AND substr(id, 1, 3) = 'ss_'
            """).map { try $0.decode(Int.self) }
    }

    func visiblePeers(of uid: Int) throws -> [(conversationId: String, uid: Int)] {
        try conn.query("""
            SELECT peer.conversation_id, peer.uid FROM member me
            JOIN member peer ON peer.conversation_id = me.conversation_id AND peer.uid <> me.uid
            WHERE me.uid = \(uid) AND NOT peer.hidden AND substr(me.conversation_id, 1, 3) = 'si_'
            """).map { row in
            let (c, u) = try row.decode((String, Int).self)
            return (conversationId: c, uid: u)
        }
    }

    func contacts(of uid: Int) throws -> [Int] {
        try conn.query("""
            SELECT peer FROM (SELECT CASE WHEN uid_low = \(uid) THEN uid_high ELSE uid_low END AS peer FROM conversation
                              WHERE uid_low = \(uid) OR uid_high = \(uid)) c
            WHERE NOT EXISTS (SELECT 1 FROM block b WHERE (b.uid = \(uid) AND b.blocked_uid = c.peer)
                                                      OR (b.uid = c.peer AND b.blocked_uid = \(uid)))
            """).map { try $0.decode(Int.self) }
    }

    static let memberColumns = """
        SELECT conversation_id, uid, is_pinned, read_seq, cleared_seq, hidden, is_im_opened, is_muted, mention_seq,
               joined_seq, joined_at, left_seq FROM member
        """

    static func member(_ row: PostgresRow) throws -> MemberRow {
        let r = row.makeRandomAccess()
        return MemberRow(conversationId: try r[0].decode(String.self), uid: try r[1].decode(Int.self),
                         isPinned: try r[2].decode(Bool.self), readSeq: try r[3].decode(Int.self),
                         clearedSeq: try r[4].decode(Int.self), hidden: try r[5].decode(Bool.self),
                         isImOpened: try r[6].decode(Bool.self), isMuted: try r[7].decode(Bool.self),
                         mentionSeq: try r[8].decode(Int.self), joinedSeq: try r[9].decode(Int.self),
                         joinedAt: try r[10].decode(Int.self), leftSeq: try r[11].decode(Int?.self))
    }
}

struct PostgresMessageRepository: MessageRepository {
    let conn: PostgresLink

    func insert(_ row: MessageRow) throws -> Int64 {
        try conn.scalar("""
            INSERT INTO message(server_msg_id, client_msg_id, sender_uid, conversation_id, seq, send_id, recv_id,
                                content_type, content, send_time, is_control)
            VALUES (\(row.serverMsgID), \(row.clientMsgID), \(row.senderUid), \(row.conversationId), \(row.seq),
                    \(row.sendID), \(row.recvID), \(row.contentType), \(row.content), \(row.sendTime), \(row.isControl))
            RETURNING id
            """, as: Int64.self) ?? 0
    }

    func message(id: Int64) throws -> MessageRow? {
        try conn.query("\(unescaped: Self.columns) WHERE id = \(id)").first.map(Self.row)
    }

    func message(in conversationId: String, clientMsgID: String) throws -> MessageRow? {
        try conn.query("""
            \(unescaped: Self.columns) WHERE conversation_id = \(conversationId) AND client_msg_id = \(clientMsgID) AND NOT is_control
            """).first.map(Self.row)
    }

    func messages(clientMsgID: String, sentBy sender: Int, orIn conversationId: String) throws -> [MessageRow] {
        try conn.query("""
            \(unescaped: Self.columns) WHERE (sender_uid = \(sender) AND client_msg_id = \(clientMsgID))
                OR (conversation_id = \(conversationId) AND client_msg_id = \(clientMsgID))
            """).map(Self.row)
    }

    func markRevoked(id: Int64, noticeSeq: Int) throws {
        try conn.execute("UPDATE message SET revoked = TRUE, content = '', notice_seq = \(noticeSeq) WHERE id = \(id)")
    }

    func markFlashViewed(id: Int64) throws {
        try conn.execute("UPDATE message SET flash_viewed = TRUE WHERE id = \(id)")
    }

    func setReactions(id: Int64, _ reactions: Reactions) throws {
        try conn.execute("UPDATE message SET reactions = \(reactions.jsonText) WHERE id = \(id)")
    }

    func replies(to clientMsgID: String, in conversationId: String) throws -> [MessageRow] {
        try conn.query("""
            \(unescaped: Self.columns) WHERE conversation_id = \(conversationId) AND content_type = 114 AND NOT revoked
                AND strpos(content, \(QuoteNeedle.of(clientMsgID))) > 0
            """).map(Self.row).filter { QuotePayload(jsonText: $0.content)?.quote.clientMsgID == clientMsgID }
    }

    func setContent(id: Int64, _ content: String) throws {
        try conn.execute("UPDATE message SET content = \(content) WHERE id = \(id)")
    }

    func edit(id: Int64, content: String, editedAt: Int) throws {
        try conn.execute("UPDATE message SET content = \(content), edited_at = \(editedAt) WHERE id = \(id)")
    }

    func lastVisible(in conversationId: String, after seq: Int, upTo ceiling: Int, for reader: Int) throws -> MessageRow? {
        try conn.query("""
            \(unescaped: Self.columns) WHERE conversation_id = \(conversationId) AND seq > \(seq) AND seq <= \(ceiling)
                AND NOT is_control
                AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = \(reader) AND h.message_id = message.id)
            ORDER BY seq DESC LIMIT 1
            """).first.map(Self.row)
    }

    func unreadCount(in conversationId: String, after seq: Int, upTo ceiling: Int, notFrom uid: Int) throws -> Int {
        try conn.scalar("""
            SELECT COUNT(*) FROM message WHERE conversation_id = \(conversationId) AND seq > \(seq) AND seq <= \(ceiling)
                AND sender_uid <> \(uid) AND NOT is_control AND content_type NOT BETWEEN 1501 AND 1511
                AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = \(uid) AND h.message_id = message.id)
            """) ?? 0
    }

    func senders(in conversationId: String, after seq: Int, upTo ceiling: Int, notFrom uid: Int) throws -> [Int] {
        try conn.query("""
            SELECT DISTINCT sender_uid FROM message WHERE conversation_id = \(conversationId) AND seq > \(seq)
                AND seq <= \(ceiling) AND sender_uid <> \(uid) AND NOT is_control AND content_type NOT BETWEEN 1501 AND 1511
            """).map { try $0.decode(Int.self) }
    }

    func senders(in conversationId: String, seqs: [Int]) throws -> [Int: Int] {
        guard !seqs.isEmpty else { return [:] }
        var out: [Int: Int] = [:]
        for row in try conn.query("""
            SELECT seq, sender_uid FROM message WHERE conversation_id = \(conversationId) AND seq = ANY(\(seqs))
                AND NOT is_control AND content_type NOT BETWEEN 1501 AND 1511
            """) {
            let (seq, sender) = try row.decode((Int, Int).self)
            out[seq] = sender
        }
        return out
    }

    func messages(in conversationId: String, after seq: Int, limit: Int, for reader: Int?) throws -> [MessageRow] {
        try conn.query("""
            \(unescaped: Self.columns) WHERE conversation_id = \(conversationId) AND seq > \(seq)
                AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = \(reader ?? 0) AND h.message_id = message.id)
            ORDER BY seq ASC LIMIT \(limit)
            """).map(Self.row)
    }

    func messages(in conversationId: String, above floor: Int, below ceiling: Int, limit: Int, for reader: Int) throws -> [MessageRow] {
        try conn.query("""
            \(unescaped: Self.columns) WHERE conversation_id = \(conversationId) AND seq > \(floor) AND seq < \(ceiling)
                AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = \(reader) AND h.message_id = message.id)
            ORDER BY seq DESC LIMIT \(limit)
            """).map(Self.row)
    }

    func hiders(of id: Int64) throws -> Set<Int> {
        Set(try conn.query("SELECT uid FROM message_hidden WHERE message_id = \(id)").map { try $0.makeRandomAccess()[0].decode(Int.self) })
    }

    func hide(_ messageIds: [Int64], for uid: Int) throws {
        guard !messageIds.isEmpty else { return }
        try conn.execute("""
            INSERT INTO message_hidden(uid, message_id) SELECT \(uid), unnest(\(messageIds)::BIGINT[]) ON CONFLICT DO NOTHING
            """)
    }

    static let columns = """
        SELECT id, server_msg_id, client_msg_id, sender_uid, conversation_id, seq, send_id, recv_id, content_type,
               content, send_time, revoked, flash_viewed, is_control, notice_seq, reactions, edited_at FROM message
        """

    static func row(_ row: PostgresRow) throws -> MessageRow {
        let r = row.makeRandomAccess()
        return MessageRow(id: try r[0].decode(Int64.self), serverMsgID: try r[1].decode(String.self),
                          clientMsgID: try r[2].decode(String.self), senderUid: try r[3].decode(Int.self),
                          conversationId: try r[4].decode(String.self), seq: try r[5].decode(Int.self),
                          sendID: try r[6].decode(String.self), recvID: try r[7].decode(String.self),
                          contentType: try r[8].decode(Int.self), content: try r[9].decode(String.self),
                          sendTime: try r[10].decode(Int.self), revoked: try r[11].decode(Bool.self),
                          flashViewed: try r[12].decode(Bool.self), isControl: try r[13].decode(Bool.self),
                          noticeSeq: try r[14].decode(Int?.self), reactions: Reactions(jsonText: try r[15].decode(String.self)),
                          editedAt: try r[16].decode(Int?.self))
    }
}

struct PostgresSyncLogRepository: SyncLogRepository {
    let conn: PostgresLink

    func append(uid: Int, messageId: Int64?, summaryKey: String?, body: String, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO event(uid, message_id, summary_key, body, created_at)
            VALUES (\(uid), \(messageId), \(summaryKey), \(body), \(createdAt)) RETURNING cur
            """, as: Int.self) ?? 0
    }

    func append(uids first: Int, _ second: Int, messageId: Int64, body: String, createdAt: Int) throws -> (Int, Int) {
        // The rows take their cursors in VALUES order.
        let cursors = try conn.query("""
            INSERT INTO event(uid, message_id, body, created_at)
            VALUES (\(first), \(messageId), \(body), \(createdAt)), (\(second), \(messageId), \(body), \(createdAt))
            RETURNING cur
            """).map { try $0.decode(Int.self) }.sorted()
        guard cursors.count == 2 else {
            throw PostgresFailure(underlying: ServerSetupError(description: "event insert returned \(cursors.count) of 2 rows"))
        }
        return (cursors[0], cursors[1])
    }

    func appendShared(conversationId: String, messageId: Int64?, body: String, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO event(uid, conversation_id, message_id, body, created_at)
            VALUES (0, \(conversationId), \(messageId), \(body), \(createdAt)) RETURNING cur
            """, as: Int.self) ?? 0
    }

    // The newest cursor handed out, read from the sequence: every write
    // holds the cluster's advisory lock, so no other writer takes one meanwhile.
    func openSpan(uid: Int, conversationId: String, afterSeq: Int) throws {
        try conn.execute("""
            INSERT INTO timeline_span(uid, conversation_id, from_cur, from_seq)
            SELECT \(uid), \(conversationId), CASE WHEN is_called THEN last_value ELSE 0 END, \(afterSeq) FROM event_cur_seq
            ON CONFLICT DO NOTHING
            """)
    }

    func closeSpan(uid: Int, conversationId: String) throws {
        try conn.execute("""
            UPDATE timeline_span SET to_cur = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM event_cur_seq)
            WHERE uid = \(uid) AND conversation_id = \(conversationId) AND to_cur IS NULL
            """)
    }

    func deleteEntries(of uid: Int, messageIds: [Int64]) throws {
        guard !messageIds.isEmpty else { return }
        try conn.execute("DELETE FROM event WHERE uid = \(uid) AND message_id = ANY(\(messageIds)::BIGINT[])")
    }

    func rewrite(messageId: Int64, asMessage: String, asUpdate: String) throws {
        try conn.execute("""
            UPDATE event SET body = CASE WHEN body LIKE '%"kind":"message_update"%' THEN \(asUpdate) ELSE \(asMessage) END
            WHERE message_id = \(messageId)
            """)
    }

    func summaries(of summaryKey: String) throws -> [(cursor: Int, body: String)] {
        try conn.query("SELECT cur, body FROM event WHERE summary_key = \(summaryKey)").map { row in
            let (c, b) = try row.decode((Int, String).self)
            return (cursor: c, body: b)
        }
    }

    func replaceBody(cursor: Int, with body: String) throws {
        try conn.execute("UPDATE event SET body = \(body) WHERE cur = \(cursor)")
    }

    func newestCursor(uid: Int) throws -> Int? {
        try conn.scalar("""
            SELECT GREATEST((SELECT MAX(cur) FROM event WHERE uid = \(uid)),
                            (SELECT MAX(t.cur) FROM timeline_span s CROSS JOIN LATERAL (
                                SELECT MAX(e.cur) AS cur FROM event e
                                WHERE e.uid = 0 AND e.conversation_id = s.conversation_id AND e.cur > s.from_cur
                                  AND (s.to_cur IS NULL OR e.cur <= s.to_cur)
                                  AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = \(uid) AND h.message_id = e.message_id)
                                  AND NOT EXISTS (SELECT 1 FROM message m WHERE m.id = e.message_id AND m.seq <= s.from_seq)) t
                             WHERE s.uid = \(uid)))
            """)
    }

    /// One round trip: the user's own entries and each span's first
    /// `limit + 1` timeline entries, merged by cursor; the bodies are read
    /// for the page's cursors only, not for every span's candidates.
    func entries(of uid: Int, after cursor: Int, limit: Int,
                 _ visit: (_ cursor: Int, _ body: String) throws -> Void) throws -> Bool {
        let rows = try conn.query("""
            WITH page AS (
                SELECT cur FROM (
                    (SELECT cur FROM event WHERE uid = \(uid) AND cur > \(cursor) ORDER BY cur LIMIT \(limit + 1))
                    UNION ALL
                    SELECT t.cur FROM timeline_span s CROSS JOIN LATERAL (
                        SELECT e.cur FROM event e
                        WHERE e.uid = 0 AND e.conversation_id = s.conversation_id
                          AND e.cur > GREATEST(\(cursor), s.from_cur) AND (s.to_cur IS NULL OR e.cur <= s.to_cur)
                          AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = \(uid) AND h.message_id = e.message_id)
                          AND NOT EXISTS (SELECT 1 FROM message m WHERE m.id = e.message_id AND m.seq <= s.from_seq)
                        ORDER BY e.cur LIMIT \(limit + 1)) t
                    WHERE s.uid = \(uid) AND (s.to_cur IS NULL OR s.to_cur > \(cursor))
                ) candidates ORDER BY cur LIMIT \(limit + 1))
            SELECT e.cur, e.body FROM page JOIN event e ON e.cur = page.cur ORDER BY e.cur
            """)
        for (i, row) in rows.enumerated() {
            if i == limit { return true }
            let (c, b) = try row.decode((Int, String).self)
            try visit(c, b)
        }
        return false
    }

    func floor() throws -> Int? {
        try conn.scalar("SELECT value FROM meta WHERE name = 'event_floor'")
    }

    func newestCursor(createdBefore ms: Int) throws -> Int? {
        try conn.scalar("SELECT MAX(cur) FROM event WHERE created_at < \(ms)")
    }

    func deleteEntries(through cursor: Int) throws {
        try conn.execute("DELETE FROM event WHERE cur <= \(cursor)")
        try conn.execute("DELETE FROM timeline_span WHERE to_cur <= \(cursor)")
    }

    func raiseFloor(to cursor: Int) throws {
        try conn.execute("""
            INSERT INTO meta(name, value) VALUES ('event_floor', \(cursor))
            ON CONFLICT (name) DO UPDATE SET value = GREATEST(meta.value, EXCLUDED.value)
            """)
    }
}

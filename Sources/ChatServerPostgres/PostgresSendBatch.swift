import ChatServer
import PostgresNIO

/// A batch of sends in six statements. The items go in as arrays, one
/// parameter per column, and come apart with `unnest`, so each statement is
/// parsed and planned once per batch instead of once per send.
struct PostgresSendBatchRepository: SendBatchRepository {
    let conn: PostgresLink

    func messages(matching keys: [(clientMsgID: String, sender: Int, conversationId: String)]) throws -> [MessageRow] {
        let rows = try conn.query(Self.matching(keys)).map(PostgresMessageRepository.row)
        var seen = Set<Int64>()
        return rows.filter { seen.insert($0.id).inserted }
    }

    /// `messages(matching:)`'s statement. One index lookup per key and
    /// branch; one OR would scan the table. A plain join let the planner
    /// hash the whole table while it is small (a fresh server's first few
    /// thousand messages: 1-9 ms a batch against 0.1-0.6 along the index); a
    /// LATERAL subquery with a LIMIT cannot be flattened into a join, so it
    /// stays a lookup. The conversation branch only tells that some message
    /// holds the id, so one row is enough; the sender branch's index is
    /// unique. The key columns (s, v, c) are named apart from message's, so
    /// its column list serves unqualified.
    static func matching(_ keys: [(clientMsgID: String, sender: Int, conversationId: String)]) -> PostgresQuery {
        let ids = keys.map(\.clientMsgID), senders = keys.map(\.sender), conversations = keys.map(\.conversationId)
        let columns = PostgresMessageRepository.columns
        return """
            SELECT m.* FROM unnest(\(senders)::BIGINT[], \(ids)::TEXT[]) AS k(s, c),
                LATERAL (\(unescaped: columns) WHERE sender_uid = k.s AND client_msg_id = k.c LIMIT 1) AS m
            UNION ALL
            SELECT m.* FROM unnest(\(conversations)::TEXT[], \(ids)::TEXT[]) AS k(v, c),
                LATERAL (\(unescaped: columns) WHERE conversation_id = k.v AND client_msg_id = k.c LIMIT 1) AS m
            """
    }

    func refused(_ pairs: [(sender: Int, receiver: Int)]) throws -> [(sender: Int, receiver: Int)] {
        try conn.query("""
            SELECT DISTINCT p.s, p.r FROM unnest(\(pairs.map(\.sender))::BIGINT[], \(pairs.map(\.receiver))::BIGINT[]) AS p(s, r)
            WHERE EXISTS (SELECT 1 FROM block b WHERE b.uid = p.r AND b.blocked_uid = p.s)
                OR (EXISTS (SELECT 1 FROM users u WHERE u.uid = p.r AND NOT u.accept_strangers)
                    AND NOT EXISTS (SELECT 1 FROM friend f WHERE f.uid = p.r AND f.peer_uid = p.s))
            """).map { row in
            let (s, r) = try row.decode((Int, Int).self)
            return (sender: s, receiver: r)
        }
    }

    func activeMembers(of conversationIds: [String]) throws -> [String: [Int]] {
        var members: [String: [Int]] = [:]
        for row in try conn.query("""
            SELECT conversation_id, uid FROM member
            WHERE conversation_id = ANY(\(conversationIds)::TEXT[]) AND left_seq IS NULL ORDER BY joined_at, uid
            """) {
            let (id, uid) = try row.decode((String, Int).self)
            members[id, default: []].append(uid)
        }
        return members
    }

    func createSingles(_ chats: [NewSingleChat], createdAt: Int) throws -> Set<String> {
        let made = try Set(conn.query("""
            INSERT INTO conversation(id, uid_low, uid_high, max_seq, created_at)
            SELECT k.id, LEAST(k.caller, k.peer), GREATEST(k.caller, k.peer), 0, \(createdAt)
            FROM unnest(\(chats.map(\.id))::TEXT[], \(chats.map(\.caller))::BIGINT[], \(chats.map(\.peer))::BIGINT[])
                AS k(id, caller, peer)
            WHERE EXISTS (SELECT 1 FROM users u WHERE u.uid = k.peer)
            ON CONFLICT (id) DO NOTHING RETURNING id
            """).map { try $0.decode(String.self) })
        let members = chats.filter { made.contains($0.id) }.flatMap { chat in chat.members.map { (chat.id, $0.uid, $0.hidden) } }
        guard !members.isEmpty else { return made }
        try conn.execute("""
            INSERT INTO member(conversation_id, uid, hidden)
            SELECT * FROM unnest(\(members.map(\.0))::TEXT[], \(members.map(\.1))::BIGINT[], \(members.map(\.2))::BOOLEAN[])
            ON CONFLICT DO NOTHING
            """)
        return made
    }

    func takeSeqs(_ counts: [(conversationId: String, count: Int)]) throws -> [String: Int] {
        var taken: [String: Int] = [:]
        // The rows stay locked until the transaction ends, as with `takeNextSeq`.
        for row in try conn.query("""
            UPDATE conversation c SET max_seq = c.max_seq + k.n
            FROM unnest(\(counts.map(\.conversationId))::TEXT[], \(counts.map(\.count))::BIGINT[]) AS k(id, n)
            WHERE c.id = k.id RETURNING c.id, c.max_seq
            """) {
            let (id, maxSeq) = try row.decode((String, Int).self)
            taken[id] = maxSeq
        }
        return taken
    }

    func insert(_ rows: [MessageRow]) throws -> [Int64] {
        var ids: [String: Int64] = [:]
        for row in try conn.query("""
            INSERT INTO message(server_msg_id, client_msg_id, sender_uid, conversation_id, seq, send_id, recv_id,
                                content_type, content, send_time, is_control)
            SELECT * FROM unnest(\(rows.map(\.serverMsgID))::TEXT[], \(rows.map(\.clientMsgID))::TEXT[],
                                 \(rows.map(\.senderUid))::BIGINT[], \(rows.map(\.conversationId))::TEXT[],
                                 \(rows.map(\.seq))::BIGINT[], \(rows.map(\.sendID))::TEXT[], \(rows.map(\.recvID))::TEXT[],
                                 \(rows.map(\.contentType))::BIGINT[], \(rows.map(\.content))::TEXT[],
                                 \(rows.map(\.sendTime))::BIGINT[], \(rows.map(\.isControl))::BOOLEAN[])
            RETURNING id, server_msg_id
            """) {
            let (id, serverMsgID) = try row.decode((Int64, String).self)
            ids[serverMsgID] = id
        }
        return try rows.map { row in
            guard let id = ids[row.serverMsgID] else { throw Self.short("message", ids.count, of: rows.count) }
            return id
        }
    }

    func noteAppended(_ notes: [MemberAppendNote]) throws {
        try conn.execute("""
            UPDATE member m SET hidden = m.hidden AND (m.cleared_seq >= k.shown OR m.left_seq IS NOT NULL),
                read_seq = GREATEST(m.read_seq, k.read)
            FROM unnest(\(notes.map(\.conversationId))::TEXT[], \(notes.map(\.uid))::BIGINT[],
                        \(notes.map(\.shownSeq))::BIGINT[], \(notes.map { $0.readSeq ?? 0 })::BIGINT[]) AS k(c, u, shown, read)
            WHERE m.conversation_id = k.c AND (m.uid = k.u OR (k.u = \(MemberAppendNote.everyHidden) AND m.hidden
                -- A row with a note of its own takes that one (a hidden sender's read mark).
                AND NOT EXISTS (SELECT 1 FROM unnest(\(notes.map(\.conversationId))::TEXT[], \(notes.map(\.uid))::BIGINT[]) AS o(c, u)
                                WHERE o.c = m.conversation_id AND o.u = m.uid)))
            """)
    }

    func append(_ entries: [LogEntry], createdAt: Int) throws -> [Int] {
        // A chat with oneself logs a message twice to one user: both get the later cursor.
        var cursors: [String: Int] = [:]
        for row in try conn.query("""
            INSERT INTO event(uid, message_id, body, created_at, conversation_id)
            SELECT k.u, k.m, k.b, \(createdAt), NULLIF(k.c, '')
            FROM unnest(\(entries.map(\.uid))::BIGINT[], \(entries.map(\.messageId))::BIGINT[], \(entries.map(\.body))::TEXT[],
                        \(entries.map { $0.conversationId ?? "" })::TEXT[])
                WITH ORDINALITY AS k(u, m, b, c, o)
            ORDER BY k.o
            RETURNING cur, uid, message_id
            """) {
            let (cur, uid, messageId) = try row.decode((Int, Int, Int64).self)
            let key = "\(uid) \(messageId)"
            cursors[key] = max(cursors[key] ?? 0, cur)
        }
        return try entries.map { entry in
            guard let cur = cursors["\(entry.uid) \(entry.messageId)"] else { throw Self.short("event", cursors.count, of: entries.count) }
            return cur
        }
    }

    static func short(_ table: String, _ got: Int, of wanted: Int) -> PostgresFailure {
        PostgresFailure(underlying: ServerSetupError(description: "\(table) insert returned \(got) of \(wanted) rows"))
    }
}

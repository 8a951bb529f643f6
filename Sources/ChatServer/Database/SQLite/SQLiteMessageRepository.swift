import ChatCore
import GRDB

struct SQLiteMessageRepository: MessageRepository {
    let db: Database

    func insert(_ row: MessageRow) throws -> Int64 {
        try db.cachedStatement(sql: """
            INSERT INTO message(serverMsgID, clientMsgID, senderUid, conversationId, seq, sendID, recvID, contentType,
                                content, sendTime, isControl)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [row.serverMsgID, row.clientMsgID, row.senderUid, row.conversationId, row.seq,
                                     row.sendID, row.recvID, row.contentType, row.content, row.sendTime, row.isControl])
        return db.lastInsertedRowID
    }

    func message(id: Int64) throws -> MessageRow? {
        try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [id])
    }

    func message(in conversationId: String, clientMsgID: String) throws -> MessageRow? {
        try MessageRow.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND clientMsgID = ? AND isControl = 0
            """), arguments: [conversationId, clientMsgID])
    }

    func messages(clientMsgID: String, sentBy sender: Int, orIn conversationId: String) throws -> [MessageRow] {
        try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message WHERE (senderUid = ?1 AND clientMsgID = ?2) OR (conversationId = ?3 AND clientMsgID = ?2)
            """), arguments: [sender, clientMsgID, conversationId])
    }

    func markRevoked(id: Int64, noticeSeq: Int) throws {
        try db.cachedStatement(sql: "UPDATE message SET revoked = 1, content = '', noticeSeq = ? WHERE id = ?")
            .execute(arguments: [noticeSeq, id])
    }

    func markFlashViewed(id: Int64) throws {
        try db.cachedStatement(sql: "UPDATE message SET flashViewed = 1 WHERE id = ?").execute(arguments: [id])
    }

    func setReactions(id: Int64, _ reactions: Reactions) throws {
        try db.cachedStatement(sql: "UPDATE message SET reactions = ? WHERE id = ?").execute(arguments: [reactions.jsonText, id])
    }

    func replies(to clientMsgID: String, in conversationId: String) throws -> [MessageRow] {
        try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND contentType = 114 AND revoked = 0 AND instr(content, ?) > 0
            """), arguments: [conversationId, QuoteNeedle.of(clientMsgID)])
            .filter { QuotePayload(jsonText: $0.content)?.quote.clientMsgID == clientMsgID }
    }

    func setContent(id: Int64, _ content: String) throws {
        try db.cachedStatement(sql: "UPDATE message SET content = ? WHERE id = ?").execute(arguments: [content, id])
    }

    func edit(id: Int64, content: String, editedAt: Int) throws {
        try db.cachedStatement(sql: "UPDATE message SET content = ?, editedAt = ? WHERE id = ?")
            .execute(arguments: [content, editedAt, id])
    }

    func lastVisible(in conversationId: String, after seq: Int, upTo ceiling: Int, for reader: Int) throws -> MessageRow? {
        try MessageRow.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message m WHERE conversationId = ? AND seq > ? AND seq <= ? AND isControl = 0
            AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = ? AND h.messageId = m.id)
            ORDER BY seq DESC LIMIT 1
            """), arguments: [conversationId, seq, ceiling, reader])
    }

    func unreadCount(in conversationId: String, after seq: Int, upTo ceiling: Int, notFrom uid: Int) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM message m WHERE conversationId = ? AND seq > ? AND seq <= ? AND senderUid <> ?
            AND isControl = 0 AND contentType NOT BETWEEN 1501 AND 1511
            AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = ?4 AND h.messageId = m.id)
            """), arguments: [conversationId, seq, ceiling, uid]) ?? 0
    }

    func senders(in conversationId: String, after seq: Int, upTo ceiling: Int, notFrom uid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: """
            SELECT DISTINCT senderUid FROM message WHERE conversationId = ? AND seq > ? AND seq <= ? AND senderUid <> ?
            AND isControl = 0 AND contentType NOT BETWEEN 1501 AND 1511
            """), arguments: [conversationId, seq, ceiling, uid])
    }

    func senders(in conversationId: String, seqs: [Int]) throws -> [Int: Int] {
        guard !seqs.isEmpty else { return [:] }
        var out: [Int: Int] = [:]
        // One statement per size of list would fill the cache: the seqs go in as one JSON array.
        let list = "[" + seqs.map(String.init).joined(separator: ",") + "]"
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT seq, senderUid FROM message WHERE conversationId = ? AND seq IN (SELECT value FROM json_each(?))
            AND isControl = 0 AND contentType NOT BETWEEN 1501 AND 1511
            """), arguments: [conversationId, list]) {
            out[row[0]] = row[1]
        }
        return out
    }

    func messages(in conversationId: String, after seq: Int, limit: Int, for reader: Int?) throws -> [MessageRow] {
        try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message m WHERE conversationId = ? AND seq > ?
            AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = ? AND h.messageId = m.id)
            ORDER BY seq ASC LIMIT ?
            """), arguments: [conversationId, seq, reader ?? 0, limit])
    }

    func messages(in conversationId: String, above floor: Int, below ceiling: Int, limit: Int, for reader: Int) throws -> [MessageRow] {
        try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message m WHERE conversationId = ? AND seq > ? AND seq < ?
            AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = ? AND h.messageId = m.id)
            ORDER BY seq DESC LIMIT ?
            """), arguments: [conversationId, floor, ceiling, reader, limit])
    }

    func hiders(of id: Int64) throws -> Set<Int> {
        Set(try Int.fetchAll(db.cachedStatement(sql: "SELECT uid FROM message_hidden WHERE messageId = ?"), arguments: [id]))
    }

    func hide(_ messageIds: [Int64], for uid: Int) throws {
        for id in messageIds {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO message_hidden(uid, messageId) VALUES (?, ?)").execute(arguments: [uid, id])
        }
    }
}

extension MessageRow: FetchableRecord {
    /// By column name, without Codable's keyed decoding (the send path reads
    /// rows on the single writer thread).
    package init(row: Row) throws {
        self.init(id: try row.decode(forColumn: "id"), serverMsgID: try row.decode(forColumn: "serverMsgID"),
                  clientMsgID: try row.decode(forColumn: "clientMsgID"), senderUid: try row.decode(forColumn: "senderUid"),
                  conversationId: try row.decode(forColumn: "conversationId"), seq: try row.decode(forColumn: "seq"),
                  sendID: try row.decode(forColumn: "sendID"), recvID: try row.decode(forColumn: "recvID"),
                  contentType: try row.decode(forColumn: "contentType"), content: try row.decode(forColumn: "content"),
                  sendTime: try row.decode(forColumn: "sendTime"), revoked: try row.decode(forColumn: "revoked"),
                  flashViewed: try row.decode(forColumn: "flashViewed"), isControl: try row.decode(forColumn: "isControl"),
                  noticeSeq: try row.decode(forColumn: "noticeSeq"),
                  reactions: Reactions(jsonText: try row.decode(forColumn: "reactions")),
                  editedAt: try row.decode(forColumn: "editedAt"))
    }
}

import ChatCore
import GRDB

/// One row of `message` (`StoredMessage` is what leaves the store).
struct MessageRecord: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "message"

    var id: Int64?
    var clientMsgID: String
    var serverMsgID: String?
    var conversationId: String
    var seq: Int?
    var sendID: String
    var recvID: String
    var contentType: Int
    var content: String
    var sendTime: Int
    var revoked: Bool
    var flashViewed: Bool
    /// Revoke notices and flash-viewed receipts: kept for seq continuity,
    /// never shown as bubbles.
    var isControl: Bool
    var status: String
    var errorReason: String?
    /// What the full-text index sees (text, signal-quote reply), "" otherwise.
    var searchText: String
    /// `Reactions.jsonText`, "" for none.
    var reactions: String
    var editedAt: Int?

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    init(row: Row) {
        id = row["id"]
        clientMsgID = row["clientMsgID"]
        serverMsgID = row["serverMsgID"]
        conversationId = row["conversationId"]
        seq = row["seq"]
        sendID = row["sendID"]
        recvID = row["recvID"]
        contentType = row["contentType"]
        content = row["content"]
        sendTime = row["sendTime"]
        revoked = row["revoked"]
        flashViewed = row["flashViewed"]
        isControl = row["isControl"]
        status = row["status"]
        errorReason = row["errorReason"]
        searchText = row["searchText"]
        reactions = row["reactions"]
        editedAt = row["editedAt"]
    }

    /// Inserts unless a row with the same clientMsgID exists; true when inserted.
    func insertIfNew(_ db: Database) throws -> Bool {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO message(clientMsgID, serverMsgID, conversationId, seq, sendID, recvID, contentType, content,
                                sendTime, revoked, flashViewed, isControl, status, errorReason, searchText, reactions, editedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(clientMsgID) DO NOTHING
            """)
        try statement.execute(arguments: [clientMsgID, serverMsgID, conversationId, seq, sendID, recvID, contentType,
                                          content, sendTime, revoked, flashViewed, isControl, status, errorReason, searchText,
                                          reactions, editedAt])
        return db.changesCount > 0
    }

    init(wire: WireMessage, status: MessageStatus = .success, errorReason: String? = nil) {
        self.init(StoredMessage(wire: wire, status: status, errorReason: errorReason))
    }

    init(_ m: StoredMessage) {
        clientMsgID = m.clientMsgID; serverMsgID = m.serverMsgID; conversationId = m.conversationId; seq = m.seq
        sendID = m.sendID; recvID = m.recvID; contentType = m.contentType; content = m.content; sendTime = m.sendTime
        revoked = m.revoked; flashViewed = m.flashViewed; isControl = m.isControl; status = m.status
        errorReason = m.errorReason; searchText = m.searchText
        reactions = m.reactions.jsonText; editedAt = m.editedAt
    }

    var stored: StoredMessage {
        StoredMessage(clientMsgID: clientMsgID, serverMsgID: serverMsgID, conversationId: conversationId, seq: seq, sendID: sendID,
                      recvID: recvID, contentType: contentType, content: content, sendTime: sendTime, revoked: revoked,
                      flashViewed: flashViewed, isControl: isControl, status: status, errorReason: errorReason,
                      searchText: searchText, reactions: Reactions(jsonText: reactions), editedAt: editedAt)
    }

    var wire: WireMessage { stored.wire }
    func chatMessage(myImUid: String) -> ChatMessage { stored.chatMessage(myImUid: myImUid) }
}

import ChatCore
import GRDB
import Synchronization

/// One row of `conversation`: every field of ``Conversation`` plus the last
/// message (for the preview, computed at read time in the reader's language),
/// visibility and the local clear point.
struct ConversationRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "conversation"

    var id: String
    var targetUid: Int
    var nickname: String
    var avatar: String
    var isOnline: Bool
    var fromSignal: Bool
    var signalId: Int?
    var receiveId: String?
    var signalReply: String?
    var signalContent: String?
    var isImOpened: Bool
    var isPinned: Bool
    var pinnedAt: Int
    var draftText: String?
    var unreadCount: Int
    var lastMessageTime: Int
    var maxSeq: Int
    var readSeq: Int
    /// Deleted by this user: not listed until a newer message arrives.
    var hidden: Bool
    /// Messages with seq <= clearedSeq were cleared and are never shown again.
    var clearedSeq: Int
    // The last message, for the preview.
    var lastClientMsgID: String?
    var lastSendID: String?
    var lastContentType: Int?
    var lastContent: String?
    var lastRevoked: Bool
    var lastSeq: Int?
    var isMuted: Bool
    /// The newest seq that mentioned me (PROTOCOL.md v2).
    var mentionSeq: Int
    /// Groups only.
    var groupId: Int?
    var memberCount: Int
    /// One-to-one (v4): the peer's read seq; nil when reads are not shared.
    var peerReadSeq: Int?
    /// Groups: the last message's sender as the group names them (not a
    /// column: looked up when the list is read, for the preview `Alice：…`).
    var lastSenderName: String?

    /// The table's columns: `lastSenderName` is none of them.
    enum CodingKeys: String, CodingKey {
        case id, targetUid, nickname, avatar, isOnline, fromSignal, signalId, receiveId, signalReply, signalContent, isImOpened, isPinned, pinnedAt, draftText, unreadCount, lastMessageTime, maxSeq, readSeq, hidden, clearedSeq, lastClientMsgID, lastSendID, lastContentType, lastContent, lastRevoked, lastSeq, isMuted, mentionSeq, groupId, memberCount, peerReadSeq, isMember
    }
    /// Groups: false once I left or was removed.
    var isMember: Bool

    init(id: String, targetUid: Int, nickname: String = "", avatar: String = "") {
        self.id = id
        self.targetUid = targetUid
        self.nickname = nickname
        self.avatar = avatar
        isOnline = false
        fromSignal = false
        isImOpened = false
        isPinned = false
        pinnedAt = 0
        unreadCount = 0
        lastMessageTime = 0
        maxSeq = 0
        readSeq = 0
        hidden = false
        clearedSeq = 0
        lastRevoked = false
        isMuted = false
        mentionSeq = 0
        groupId = ConversationIDHelper.groupId(id)
        memberCount = 0
        isMember = true
    }

    /// Column-by-column decoding: several times faster than Codable, which
    /// matters for the list of a thousand conversations.
    /// The columns in the order `init(row:)` reads them by position when a
    /// query selects exactly `selection` (the list query); other queries
    /// fall back to lookup by name.
    static let selection = "id, targetUid, nickname, " + afterNickname
    private static let afterNickname = "avatar, isOnline, fromSignal, signalId, receiveId, signalReply, signalContent, isImOpened, isPinned, pinnedAt, draftText, unreadCount, lastMessageTime, maxSeq, readSeq, hidden, clearedSeq, lastClientMsgID, lastSendID, lastContentType, lastContent, lastRevoked, lastSeq, isMuted, mentionSeq, groupId, memberCount, peerReadSeq, isMember"

    /// `selection` with the name a list shows: my remark for a friend
    /// (PROTOCOL.md v3), else the peer's or group's name. For reads only: a
    /// record read this way is never written back.
    static let shownSelection = "id, targetUid, " + """
        COALESCE((SELECT NULLIF(k.remark, '') FROM contact k WHERE k.uid = conversation.targetUid AND conversation.targetUid > 0), \
        nickname) AS nickname
        """ + ", " + afterNickname

    /// One conversation by id through a cached statement: the query
    /// interface (`fetchOne(db, key:)`) compiles its SQL on every call, and
    /// every sync batch looks conversations up.
    static func fetchOne(_ db: Database, id: String) throws -> ConversationRecord? {
        try fetchOne(db.cachedStatement(sql: "SELECT \(selection) FROM conversation WHERE id = ?"), arguments: [id])
    }

    init(row: Row) {
        if row.count == Self.columnCount, row.columnNames.first == "id", row.columnNames.last == "isMember" {
            self.init(positional: row)
        } else {
            self.init(named: row)
        }
    }

    /// Every row of `statement`, by position when its columns are
    /// `selection`'s: checked once here, not per row (each check makes
    /// Strings of the column names, a fifth of the list's time).
    static func fetchAll(selected statement: Statement) throws -> [ConversationRecord] {
        let names = statement.columnNames
        guard names.count == columnCount, names.first == "id", names.last == "isMember" else { return try fetchAll(statement) }
        let rows = try Row.fetchCursor(statement)
        var records: [ConversationRecord] = []
        while let row = try rows.next() { records.append(ConversationRecord(positional: row)) }
        return records
    }

    /// A row whose columns are `selection`'s, in its order.
    private init(positional row: Row) {
        id = row[0]
        targetUid = row[1]
        nickname = row[2]
        avatar = row[3]
        isOnline = row[4]
        fromSignal = row[5]
        signalId = row[6]
        receiveId = row[7]
        signalReply = row[8]
        signalContent = row[9]
        isImOpened = row[10]
        isPinned = row[11]
        pinnedAt = row[12]
        draftText = row[13]
        unreadCount = row[14]
        lastMessageTime = row[15]
        maxSeq = row[16]
        readSeq = row[17]
        hidden = row[18]
        clearedSeq = row[19]
        lastClientMsgID = row[20]
        lastSendID = row[21]
        lastContentType = row[22]
        lastContent = row[23]
        lastRevoked = row[24]
        lastSeq = row[25]
        isMuted = row[26]
        mentionSeq = row[27]
        groupId = row[28]
        memberCount = row[29]
        peerReadSeq = row[30]
        isMember = row[31]
    }

    private init(named row: Row) {
        id = row["id"]
        targetUid = row["targetUid"]
        nickname = row["nickname"]
        avatar = row["avatar"]
        isOnline = row["isOnline"]
        fromSignal = row["fromSignal"]
        signalId = row["signalId"]
        receiveId = row["receiveId"]
        signalReply = row["signalReply"]
        signalContent = row["signalContent"]
        isImOpened = row["isImOpened"]
        isPinned = row["isPinned"]
        pinnedAt = row["pinnedAt"]
        draftText = row["draftText"]
        unreadCount = row["unreadCount"]
        lastMessageTime = row["lastMessageTime"]
        maxSeq = row["maxSeq"]
        readSeq = row["readSeq"]
        hidden = row["hidden"]
        clearedSeq = row["clearedSeq"]
        lastClientMsgID = row["lastClientMsgID"]
        lastSendID = row["lastSendID"]
        lastContentType = row["lastContentType"]
        lastContent = row["lastContent"]
        lastRevoked = row["lastRevoked"]
        lastSeq = row["lastSeq"]
        isMuted = row["isMuted"]
        mentionSeq = row["mentionSeq"]
        groupId = row["groupId"]
        memberCount = row["memberCount"]
        peerReadSeq = row["peerReadSeq"]
        isMember = row["isMember"]
    }

    static let columnCount = 32

    mutating func setLast(_ m: MessageRecord) {
        lastClientMsgID = m.clientMsgID
        lastSendID = m.sendID
        lastContentType = m.contentType
        lastContent = m.content
        lastRevoked = m.revoked
        lastSeq = m.seq
        lastMessageTime = max(lastMessageTime, m.sendTime)
    }

    mutating func clearLast() {
        lastClientMsgID = nil; lastSendID = nil; lastContentType = nil; lastContent = nil
        lastRevoked = false; lastSeq = nil
    }

    /// The preview line in `localizer`'s language.
    func preview(myImUid: String, localizer: Localizer, memo: PreviewMemo? = nil) -> String {
        guard let type = lastContentType, let content = lastContent, let sender = lastSendID else { return "" }
        // A message's summary changes only when it is revoked (its text never
        // changes; uploads only fill in object keys), so the id is the key.
        let memoKey = PreviewMemo.Key(conversationId: id, clientMsgID: lastClientMsgID ?? "", revoked: lastRevoked, sender: sender == myImUid,
                                      language: localizer.language, senderName: lastSenderName)
        if let hit = memo?.get(memoKey) { return hit }
        let text = computePreview(type: type, content: content, sender: sender, myImUid: myImUid, localizer: localizer)
        memo?.set(memoKey, text)
        return text
    }

    func computePreview(type: Int, content: String, sender: String, myImUid: String, localizer: Localizer) -> String {
        let wire = WireMessage(serverMsgID: "", clientMsgID: lastClientMsgID ?? "", conversationId: id, seq: lastSeq ?? 0,
                               sendID: sender, recvID: id, contentType: type, content: content, sendTime: lastMessageTime,
                               revoked: lastRevoked)
        let msg = IMMessageMapper.map(wire, currentUID: myImUid)
        let summary = TerminalSanitizer.sanitize(MessageKinds.summary(of: msg, localizer: localizer))
        // Seed 004's group summary: "name: content", except my own, notices and revokes.
        guard groupId != nil, sender != myImUid, !msg.isRecalled, !msg.isControl, msg.type != .groupNotice,
              let name = lastSenderName, !name.isEmpty else { return summary }
        return localizer.string("summary.groupSender", ["name": TerminalSanitizer.oneLine(name), "text": summary])
    }

    func conversation(myImUid: String, localizer: Localizer, memo: PreviewMemo? = nil) -> Conversation {
        Conversation(
            id: id, targetUid: targetUid, nickname: nickname, avatar: avatar, isOnline: isOnline,
            fromSignal: fromSignal, signalId: signalId, receiveId: receiveId, signalReply: signalReply,
            signalContent: signalContent, isImOpened: isImOpened, isPinned: isPinned, draftText: draftText,
            unreadCount: unreadCount, lastMessagePreview: preview(myImUid: myImUid, localizer: localizer, memo: memo),
            lastMessageTime: lastMessageTime, maxSeq: maxSeq, readSeq: readSeq, pinnedAt: pinnedAt,
            isMuted: isMuted, mentionSeq: mentionSeq, groupId: groupId, memberCount: memberCount, isMember: isMember,
            peerReadSeq: peerReadSeq
        )
    }
}

/// Previews already computed, so redrawing a list of a thousand
/// conversations does not decode a thousand payloads again.
final class PreviewMemo: Sendable {
    struct Key: Hashable, Sendable {
        var conversationId: String
        var clientMsgID: String
        var revoked: Bool
        var sender: Bool
        var language: Language
        var senderName: String?
    }
    init() {}
    private let table = Mutex<[Key: String]>([:])

    func get(_ key: Key) -> String? { table.withLock { $0[key] } }

    func set(_ key: Key, _ value: String) {
        table.withLock { t in
            if t.count >= 20_000 { t.removeAll(keepingCapacity: true) }
            t[key] = value
        }
    }
}

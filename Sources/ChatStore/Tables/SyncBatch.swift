import ChatCore
import Foundation
import GRDB

/// What applying a batch of events changed, for the view models.
public struct AppliedChanges: Sendable, Hashable {
    public var conversationIds: Set<String> = []
    /// New messages from the peer (not ours, not control), by conversation.
    public var incoming: [String: Int] = [:]
    public var updatedClientMsgIDs: Set<String> = []
    /// Groups whose info changed.
    public var groupIds: Set<Int> = []
    /// Conversations with a new message that mentions me (or everyone).
    public var mentioned: Set<String> = []
    /// The newest new incoming message per conversation (what a notification shows).
    public var newestIncoming: [String: WireMessage] = [:]
    /// Friends or friend requests changed.
    public var peopleChanged = false
    /// Requests to me that arrived pending (what a notification shows).
    public var newRequests: [FriendRequest] = []
    /// v4: the account signed in on other devices (what the app tells the user).
    public var newLogins: [NewLoginSession] = []
    /// v4: users whose devices with keys changed (their safety number did).
    public var devicesChanged: Set<String> = []
    /// v4: my secret messages a peer's device asks to be sealed again.
    public var secretRetries: [SecretRetry] = []
    /// v4: secret messages this device could not open (a retry is asked).
    public var undecryptable: [SecretRetry] = []
    /// v4: blobs of secret messages opened here, to fetch and decrypt.
    public var secretBlobs: [SecretBlob] = []
    /// v4: cached objects of disappearing messages whose time ran out.
    public var expiredObjects: [String] = []
    /// v4: a one-time prekey of this device was used (time to top up).
    public var prekeysUsed = false
    public init() {}

    /// Adds a later batch's changes (its newest incoming messages win).
    public mutating func merge(_ later: AppliedChanges) {
        conversationIds.formUnion(later.conversationIds)
        incoming.merge(later.incoming, uniquingKeysWith: +)
        updatedClientMsgIDs.formUnion(later.updatedClientMsgIDs)
        groupIds.formUnion(later.groupIds)
        mentioned.formUnion(later.mentioned)
        newestIncoming.merge(later.newestIncoming, uniquingKeysWith: { $1 })
        peopleChanged = peopleChanged || later.peopleChanged
        newRequests += later.newRequests
        newLogins += later.newLogins
        devicesChanged.formUnion(later.devicesChanged)
        secretRetries += later.secretRetries
        undecryptable += later.undecryptable
        secretBlobs += later.secretBlobs
        expiredObjects += later.expiredObjects
        prekeysUsed = prekeysUsed || later.prekeysUsed
    }
}

/// A secret message and the device (`tb_N:deviceId`) it concerns.
public struct SecretRetry: Sendable, Hashable {
    public var conversationId: String
    public var clientMsgID: String
    public var deviceKey: String
    public init(conversationId: String, clientMsgID: String, deviceKey: String) {
        self.conversationId = conversationId; self.clientMsgID = clientMsgID; self.deviceKey = deviceKey
    }
}

/// One `/chat/sync` batch applied to every table it touches, inside the
/// transaction that also moves the cursor.
enum SyncBatch {
    static func apply(_ events: [SyncEvent], cursor: Int, me: StoreOwner, db: Database) throws -> AppliedChanges {
        var changes = AppliedChanges()
        // Conversation bookkeeping is done once per conversation per batch.
        var touched: [String: [MessageRecord]] = [:]
        var clearedSeqs: [String: Int] = [:]
        for event in events {
            switch event {
            case .message(let w):
                guard me.isMine(w.conversationId) else { continue }
                let record: MessageRecord
                if w.contentType == SecretWire.contentType {
                    guard let opened = try SecretIngest.record(for: w, me: me, db: db, changes: &changes) else { continue }
                    record = opened
                } else {
                    record = MessageRecord(wire: w)
                }
                let isNew = try MessageTable.insertOrMerge(record, db: db, clearedSeqs: &clearedSeqs)
                if isNew && !record.isControl && record.sendID != me.imUid && !ContentType.isGroupNotice(w.contentType) {
                    changes.incoming[w.conversationId, default: 0] += 1
                    changes.newestIncoming[w.conversationId] = w
                    if MentionPayload.carried(contentType: w.contentType, content: w.content)?.mentions(me.imUid) == true {
                        changes.mentioned.insert(w.conversationId)
                    }
                }
                if w.contentType == ContentType.revokeNotice, let target = revokedTarget(w.content) {
                    try MessageTable.setRevokedByNotice(target: target, db: db)
                    changes.updatedClientMsgIDs.insert(target)
                }
                if w.contentType == ContentType.custom,
                   let target = IMMessageMapper.decode(contentType: w.contentType, content: w.content).1.flashViewedTarget {
                    try MessageTable.setFlashViewed(clientMsgID: target, db: db)
                    changes.updatedClientMsgIDs.insert(target)
                }
                touched[w.conversationId, default: []].append(record)
            case .messageUpdate(let w) where w.deletedForMe == true:
                guard me.isMine(w.conversationId) else { continue }
                try MessageTable.deleteForMe([w.clientMsgID], in: w.conversationId, me: me, db: db, changes: &changes)
            case .messageUpdate(let w):
                guard me.isMine(w.conversationId) else { continue }
                if w.contentType == SecretWire.contentType {
                    guard let opened = try SecretIngest.record(for: w, me: me, db: db, changes: &changes) else { continue }
                    try MessageTable.insertOrMerge(opened, db: db, clearedSeqs: &clearedSeqs)
                } else {
                    try MessageTable.insertOrMerge(MessageRecord(wire: w), db: db, clearedSeqs: &clearedSeqs)
                }
                changes.updatedClientMsgIDs.insert(w.clientMsgID)
                if touched[w.conversationId] == nil { touched[w.conversationId] = [] }
            case .conversation(let s):
                // Summaries interleave with messages: settle pending
                // bookkeeping first so the summary's view wins.
                if let pending = touched.removeValue(forKey: s.conversationId) {
                    try ConversationTable.noteNewMessages(pending, conversationId: s.conversationId, me: me, db: db,
                                                          changes: &changes)
                }
                try ConversationTable.applySummary(s, me: me, db: db)
                clearedSeqs[s.conversationId] = nil
                changes.conversationIds.insert(s.conversationId)
            case .group(let info):
                try GroupTable.apply(info, me: me, db: db)
                changes.conversationIds.insert(info.conversationId)
                changes.groupIds.insert(info.groupId)
            case .contact(let contact, let removed):
                try ContactTable.apply(contact, removed: removed, db: db)
                changes.peopleChanged = true
            case .friendRequest(let request):
                try ContactTable.apply(request, db: db)
                changes.peopleChanged = true
                if request.status == .pending, request.to.uid == me.uid { changes.newRequests.append(request) }
            case .newLogin(let session):
                changes.newLogins.append(session)
            case .devices(let userId):
                changes.devicesChanged.insert(userId)
            case .secretRetry(let conversationId, let clientMsgID, let deviceId):
                changes.secretRetries.append(SecretRetry(conversationId: conversationId, clientMsgID: clientMsgID,
                                                         deviceKey: deviceId))
            case .read(let conversationId, _, let seq):
                guard me.isMine(conversationId) else { continue }
                try ConversationTable.notePeerRead(conversationId, seq: seq, db: db)
                changes.conversationIds.insert(conversationId)
            }
        }
        for (id, records) in touched {
            try ConversationTable.noteNewMessages(records, conversationId: id, me: me, db: db, changes: &changes)
        }
        try HistoryTable.setCursor(cursor, db: db)
        return changes
    }

    static func revokedTarget(_ content: String) -> String? {
        guard let data = content.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return obj["clientMsgID"] as? String
    }
}

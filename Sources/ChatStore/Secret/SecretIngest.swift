import ChatCore
import Foundation
import GRDB

/// A decrypted secret message's blob, to fetch and open (ChatSync does the network).
public struct SecretBlob: Sendable, Hashable {
    public var conversationId: String
    public var objectKey: String
    /// AES-256-GCM key and SHA-256 of the blob, base64, as the sender's plaintext gave them.
    public var key: String
    public var sha256: String
    public init(conversationId: String, objectKey: String, key: String, sha256: String) {
        self.conversationId = conversationId; self.objectKey = objectKey; self.key = key; self.sha256 = sha256
    }
}

/// Secret messages (contentType 300) as they arrive, turned into what this
/// device keeps: the message that was inside, a control applied to its
/// target, this device's own copy, or a sealed row to retry.
enum SecretIngest {
    /// The record to store for `w` (nil: nothing to store), inside the batch's transaction.
    static func record(for w: WireMessage, me: StoreOwner, db: Database, changes: inout AppliedChanges) throws -> MessageRecord? {
        let existing = try MessageTable.record(clientMsgID: w.clientMsgID, db: db)
        if w.expired == true {
            // Gone for everyone: no copy, no search entry, no cached media.
            if let existing, existing.conversationId == w.conversationId {
                let objects = MessageKinds.objectKeys(in: existing.chatMessage(myImUid: me.imUid).content)
                changes.expiredObjects += objects
                for key in objects { try db.execute(sql: "DELETE FROM secretBlobKey WHERE objectKey = ?", arguments: [key]) }
                try MessageTable.deleteForMe([w.clientMsgID], in: w.conversationId, me: me, db: db, changes: &changes)
            }
            return nil
        }
        // Opened (or sent) here before: the server's copy adds only its seq and flags.
        if let existing, existing.conversationId == w.conversationId, existing.contentType != SecretWire.contentType
            || SecretNoticePayload(jsonText: existing.content) != nil || existing.isControl {
            var kept = existing
            kept.serverMsgID = w.serverMsgID.isEmpty ? existing.serverMsgID : w.serverMsgID
            kept.seq = w.seq > 0 ? w.seq : existing.seq
            kept.sendTime = w.seq > 0 ? w.sendTime : existing.sendTime
            kept.revoked = existing.revoked || w.revoked
            kept.flashViewed = existing.flashViewed || w.flashViewed
            return kept
        }
        var sealed = MessageRecord(wire: w)
        guard let payload = SecretPayload.decode(w.content) else { return sealed }
        let myDevice = try SecretVault.deviceId(db)
        let mine = SecretWire.envelopeKey(imUid: me.imUid, deviceId: myDevice ?? "")
        let outer = SecretOuter(conversationId: w.conversationId, clientMsgID: w.clientMsgID,
                                sender: SecretWire.envelopeKey(imUid: w.sendID, deviceId: payload.sender(of: mine)), kind: payload.class,
                                expireAt: payload.expireAt, flash: payload.flash == true, blobs: payload.blobs ?? [])
        var opened = try SecretVault.open(payload, outer, senderImUid: w.sendID, myImUid: me.imUid, myDevice: myDevice, db)
        if case .mine = opened, let kept = try Data.fetchOne(db, sql: "SELECT plaintext FROM secretSent WHERE clientMsgID = ?",
                                                             arguments: [w.clientMsgID]) {
            opened = .plaintext(kept)
        }
        switch opened {
        case .plaintext(let data):
            if payload.envelopes[mine]?.isPrekey == true { changes.prekeysUsed = true }
            guard let inner = SecretPlaintext.decode(data) else { return sealed }
            if payload.isControl {
                try apply(inner, from: w, me: me, db: db, changes: &changes)
                sealed.isControl = true
                sealed.content = ""
                if inner.ctl == "timer" {
                    // My own change reads "你设置了…" (an empty name).
                    let name = w.sendID == me.imUid ? "" : try displayName(w.sendID, me: me, db: db)
                    sealed.content = SecretNoticePayload(.timer, name: name, seconds: inner.seconds ?? 0).jsonText
                    sealed.isControl = false
                }
                return sealed
            }
            // Only what a person writes (PROTOCOL.md: 101, 110, 114; and a 聊天记录): never a notice the server alone makes.
            guard let type = inner.contentType, Self.writable.contains(type), let content = inner.content else { return sealed }
            var opened = w
            opened.contentType = type
            opened.content = content
            var record = MessageRecord(wire: opened)
            record.isControl = false
            if let blob = blob(in: content, conversationId: w.conversationId), payload.blobs?.contains(blob.objectKey) == true {
                try db.execute(sql: "INSERT OR REPLACE INTO secretBlobKey(objectKey, key, sha256) VALUES (?, ?, ?)",
                               arguments: [blob.objectKey, blob.key, blob.sha256])
                // A flash image is fetched only when viewed, and never kept.
                if payload.flash != true { changes.secretBlobs.append(blob) }
            }
            return record
        case .mine:
            // Sent from this device, whose own copy is gone (cleared): nothing to ask for.
            sealed.isControl = payload.isControl
            return sealed
        case .failed:
            // A control that does not open changes nothing on screen; a message says so and is asked for again.
            sealed.isControl = payload.isControl
            changes.undecryptable.append(SecretRetry(conversationId: w.conversationId, clientMsgID: w.clientMsgID,
                                                     deviceKey: mine))
            return sealed
        case .notForThisDevice:
            // Said once per chat; the others keep their seqs, unseen.
            let said = try Bool.fetchOne(db, sql: """
                SELECT 1 FROM message WHERE conversationId = ? AND contentType = ? AND content = ?
                """, arguments: [w.conversationId, SecretWire.contentType, SecretNoticePayload(.beforeThisDevice).jsonText]) == true
            sealed.content = SecretNoticePayload(.beforeThisDevice).jsonText
            sealed.isControl = said
            sealed.searchText = ""
            return sealed
        }
    }

    /// The contentTypes a secret message may carry inside.
    static let writable: Set<Int> = [ContentType.text, ContentType.custom, ContentType.quote, ContentType.merged]

    /// A reaction, an edit or a timer from inside a secret message.
    static func apply(_ ctl: SecretPlaintext, from w: WireMessage, me: StoreOwner, db: Database,
                      changes: inout AppliedChanges) throws {
        switch ctl.ctl {
        case "react":
            guard let target = ctl.target, let emoji = ctl.emoji, Reactions.isValidEmoji(emoji),
                  let m = try MessageTable.record(clientMsgID: target, db: db), m.conversationId == w.conversationId else { return }
            var reactions = Reactions(jsonText: m.reactions)
            _ = reactions.set(emoji, by: w.sendID, on: ctl.on ?? true)
            try MessageTable.setReactions(clientMsgID: target, reactions, db: db)
            changes.updatedClientMsgIDs.insert(target)
        case "edit":
            guard let target = ctl.target, let text = ctl.content,
                  let m = try MessageTable.record(clientMsgID: target, db: db), m.conversationId == w.conversationId,
                  m.sendID == w.sendID, m.contentType == ContentType.text else { return }
            try db.execute(sql: "UPDATE message SET content = ?, searchText = ?, editedAt = ? WHERE id = ?",
                           arguments: [text, text, w.sendTime, m.id])
            changes.updatedClientMsgIDs.insert(target)
        case "timer":
            // When both sides change it, the higher seq wins.
            try db.execute(sql: """
                INSERT INTO secretChat(conversationId, timerSeconds, timerSeq) VALUES (?, ?, ?)
                ON CONFLICT(conversationId) DO UPDATE SET timerSeconds = excluded.timerSeconds, timerSeq = excluded.timerSeq
                WHERE excluded.timerSeq >= secretChat.timerSeq
                """, arguments: [w.conversationId, max(0, ctl.seconds ?? 0), w.seq])
            changes.conversationIds.insert(w.conversationId)
        default:
            return
        }
    }

    /// The blob a single-object payload names with its key, if any.
    static func blob(in content: String, conversationId: String) -> SecretBlob? {
        guard let obj = JSONObject(jsonText: content), let key = obj.nonEmpty("key"), let hash = obj.nonEmpty("sha256"),
              let objectKey = obj.nonEmpty("objectKey") else { return nil }
        return SecretBlob(conversationId: conversationId, objectKey: objectKey, key: key, sha256: hash)
    }

    static func displayName(_ imUid: String, me: StoreOwner, db: Database) throws -> String {
        guard let uid = ConversationIDHelper.uid(fromImUid: imUid) else { return imUid }
        return try String.fetchOne(db, sql: "SELECT username FROM profile WHERE uid = ?", arguments: [uid]) ?? imUid
    }
}

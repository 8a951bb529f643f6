import ChatCore
import Foundation

/// One message of an export, flattened to what a reader of the file needs:
/// names beside ids, the words of every kind, what it replies to, who
/// reacted, whether it was edited or revoked, and where its media were
/// saved. A jsonl line is one of these (keys sorted), and decodes back.
public struct ExportRecord: Codable, Sendable, Hashable {
    public struct Person: Codable, Sendable, Hashable {
        /// The imUid, `tb_7`.
        public var id: String
        /// The login name, when this device knows it.
        public var account: String?
        public var name: String
        public init(id: String, account: String? = nil, name: String) {
            self.id = id; self.account = account; self.name = name
        }
    }

    /// What a reply quotes: a message of the chat, or (`clientMsgID` nil)
    /// the signal a signal reply answers.
    public struct Reply: Codable, Sendable, Hashable {
        public var clientMsgID: String?
        public var seq: Int?
        public var sender: Person?
        /// Its words as the server quoted them; nil once it was revoked.
        public var text: String?
        public var revoked: Bool
        public init(clientMsgID: String?, seq: Int? = nil, sender: Person? = nil, text: String?, revoked: Bool = false) {
            self.clientMsgID = clientMsgID; self.seq = seq; self.sender = sender; self.text = text; self.revoked = revoked
        }
    }

    /// One emoji and who reacted with it, in the order they did.
    public struct Reaction: Codable, Sendable, Hashable {
        public var emoji: String
        public var people: [Person]
        public init(emoji: String, people: [Person]) { self.emoji = emoji; self.people = people }
    }

    /// A picture, voice message or file of the message.
    public struct Media: Codable, Sendable, Hashable {
        /// `image`, `voice` or `file`.
        public var kind: String
        /// The sender's name for a file; the stored object's for the rest.
        public var name: String
        /// Relative to the export file (`media/<chat>/<seq>-<name>`); nil
        /// when it was not saved.
        public var path: String?
        public init(kind: String, name: String, path: String? = nil) { self.kind = kind; self.name = name; self.path = path }
    }

    /// One message inside a merged forward (聊天记录).
    public struct Forwarded: Codable, Sendable, Hashable {
        public var sender: String
        public var timeMs: Int?
        public var text: String
        public init(sender: String, timeMs: Int?, text: String) { self.sender = sender; self.timeMs = timeMs; self.text = text }
    }

    public var conversationId: String
    public var clientMsgID: String
    public var seq: Int
    /// Unix milliseconds, and the same instant in ISO 8601 UTC.
    public var timeMs: Int
    public var time: String
    public var sender: Person
    public var isMe: Bool
    /// The message's type (`text`, `image`, `quote`, `flashImage`, ...).
    public var kind: String
    /// Its words: a text's text, else its summary (`[图片]`, `[文件] a.pdf`),
    /// a notice's sentence, or the line a revoked message or a flash image
    /// leaves.
    public var text: String
    /// A line about the chat (group and secret-chat notices), from no one in particular.
    public var notice: Bool
    public var reply: Reply?
    public var reactions: [Reaction]
    public var editedAtMs: Int?
    public var editedAt: String?
    public var revoked: Bool
    public var media: [Media]
    public var forwarded: [Forwarded]?

    public init(conversationId: String, clientMsgID: String, seq: Int, timeMs: Int, sender: Person, isMe: Bool, kind: String,
                text: String, notice: Bool = false, reply: Reply? = nil, reactions: [Reaction] = [], editedAtMs: Int? = nil,
                revoked: Bool = false, media: [Media] = [], forwarded: [Forwarded]? = nil) {
        self.conversationId = conversationId; self.clientMsgID = clientMsgID; self.seq = seq
        self.timeMs = timeMs; self.time = ExportTime.iso8601(timeMs)
        self.sender = sender; self.isMe = isMe; self.kind = kind; self.text = text; self.notice = notice
        self.reply = reply; self.reactions = reactions
        self.editedAtMs = editedAtMs; self.editedAt = editedAtMs.map(ExportTime.iso8601)
        self.revoked = revoked; self.media = media; self.forwarded = forwarded
    }
}

/// Who is who in an export: me, the names this device knows by imUid,
/// and for a one-to-one chat the peer's name for anyone else.
public struct ExportPeople: Sendable {
    public var me: ExportRecord.Person
    public var known: [String: ExportRecord.Person]
    public var fallbackName: String?
    public init(me: ExportRecord.Person, known: [String: ExportRecord.Person] = [:], fallbackName: String? = nil) {
        self.me = me; self.known = known; self.fallbackName = fallbackName
    }

    public func person(_ id: String) -> ExportRecord.Person {
        if id == me.id { return me }
        return known[id] ?? ExportRecord.Person(id: id, name: fallbackName ?? id)
    }
}

/// The stored object behind one ``ExportRecord/Media`` entry.
public struct ExportMediaObject: Sendable, Hashable {
    public var objectKey: String
    /// Its file's name in the conversation's media folder.
    public var fileName: String
    public init(objectKey: String, fileName: String) { self.objectKey = objectKey; self.fileName = fileName }
}

extension ExportRecord {
    /// The record of `message` (acknowledged: `seq` > 0; else nil), with
    /// its media listed but not saved, and the objects to save them from,
    /// one per `media` entry. A flash image is never among them.
    public static func from(_ message: ChatMessage, people: ExportPeople,
                            localizer L: Localizer) -> (record: ExportRecord, objects: [ExportMediaObject])? {
        let m = message
        guard m.seq > 0 else { return nil }
        var record = ExportRecord(conversationId: m.conversationId, clientMsgID: m.id, seq: m.seq, timeMs: m.createTime,
                                  sender: people.person(m.senderId), isMe: m.isMe, kind: m.type.rawValue,
                                  text: MessageKinds.summary(of: m, localizer: L), revoked: m.isRecalled)
        if m.isRecalled { return (record, []) }
        record.reactions = m.reactions.entries.map { Reaction(emoji: $0.emoji, people: $0.users.map(people.person)) }
        record.editedAtMs = m.editedAt
        record.editedAt = m.editedAt.map(ExportTime.iso8601)
        if m.isFlash {
            // Seen once, never kept: neither its bytes nor a link leave the chat.
            record.text = L.string("export.flashImage")
            return (record, [])
        }
        let c = m.content
        if let p = c.groupNotice {
            record.text = p.sentence(me: people.me.id, L)
            record.notice = true
        } else if let p = c.secretNotice {
            record.text = p.sentence(L)
            record.notice = true
        } else if let text = m.text {
            record.text = text
        } else if let p = c.signalQuote {
            record.text = p.replyContent
            record.reply = Reply(clientMsgID: nil, text: p.signalContent)
        } else if let p = c.card, !p.account.isEmpty {
            record.text += " (\(p.account))"
        } else if let p = c.merged {
            record.forwarded = p.items.map { item in
                let inner = item.message(currentUID: people.me.id)
                let words = inner.map { $0.isFlash ? L.string("export.flashImage") : $0.text ?? MessageKinds.summary(of: $0, localizer: L) }
                return Forwarded(sender: item.senderName ?? item.sendID.map { people.person($0).name } ?? "",
                                 timeMs: item.sendTime, text: words ?? "")
            }
        }
        if let q = c.quote?.quote {
            record.reply = Reply(clientMsgID: q.clientMsgID, seq: q.seq, sender: q.sendID.map(people.person),
                                 text: q.revoked ? nil : q.text ?? q.type.map { "[\($0)]" }, revoked: q.revoked)
        }
        let objects = mediaObjects(of: c)
        record.media = objects.map { Media(kind: $0.kind, name: $0.name) }
        let named = objects.enumerated().map { i, o in
            ExportMediaObject(objectKey: o.key, fileName: ExportPaths.mediaFileName(seq: m.seq, index: objects.count > 1 ? i + 1 : nil,
                                                                                    name: o.name, kind: o.kind))
        }
        return (record, named)
    }

    /// Pictures, voice and files, by kind: a flash image is not one of them.
    static func mediaObjects(of c: MessageContent) -> [(key: String, kind: String, name: String)] {
        func objectName(_ key: String) -> String { String(key.split(separator: "/").last ?? "") }
        if let p = c.image { return [(key: p.objectKey, kind: "image", name: objectName(p.objectKey))] }
        if let p = c.multiImage { return p.multiObjectKeys.map { (key: $0, kind: "image", name: objectName($0)) } }
        if let p = c.audio { return [(key: p.objectKey, kind: "voice", name: objectName(p.objectKey))] }
        if let p = c.file { return [(key: p.objectKey, kind: "file", name: p.name)] }
        return []
    }
}

/// An export's times: UTC for machines, minutes in a zone for people.
/// No wall clock: the same message reads the same in every export.
public enum ExportTime {
    /// `2026-11-28T06:03:07.250Z`.
    public static func iso8601(_ ms: Int) -> String {
        guard let t = LocalTime.of(milliseconds: ms, utcOffsetSeconds: 0) else { return "" }
        // Floor division, as LocalTime's: before 1970 too.
        let millis = ((ms % 1000) + 1000) % 1000
        let seconds = (((ms - millis) / 1000 % 60) + 60) % 60
        return "\(date(t))T\(t.clock):\(LocalTime.two(seconds)).\(String(millis + 1000).dropFirst())Z"
    }

    /// `2026-11-28 14:03` at `utcOffsetSeconds` east of UTC, or in the
    /// user's time zone when nil.
    public static func local(_ ms: Int, utcOffsetSeconds: Int?) -> String {
        guard let t = LocalTime.of(milliseconds: ms, utcOffsetSeconds: utcOffsetSeconds) else { return "" }
        return "\(date(t)) \(t.clock)"
    }

    /// `2026-11-28`.
    static func date(_ t: LocalTime) -> String {
        let year = String(t.year)
        return "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(LocalTime.two(t.month))-\(LocalTime.two(t.day))"
    }
}

import ChatCore
import Foundation

/// A room I am in (PROTOCOL.md v3 "Rooms"): while I am there, it sits at
/// the top of the list; quitting or losing the connection leaves it, and
/// the client enters again when the connection comes back.
struct RoomEntry: Equatable {
    var info: RoomInfo
    /// Who is here now, as entering answered and the notices since said.
    var present: [UserBasicInfo]
    /// Display names by imUid of everyone seen here, present or gone: the
    /// room's messages name their senders by these.
    var names: [String: String] = [:]
    /// The newest seq kept: a push after a gap fills the gap from history.
    var lastSeq = 0
    /// Something was said here that I have not seen: the row is bold.
    var unseen = false
    var preview = ""
    /// Unix milliseconds of the newest message.
    var lastTime = 0

    init(_ entered: EnterRoomResponse, me: String, _ L: Localizer) {
        info = entered.room
        present = entered.present
        for u in entered.present { names[ConversationIDHelper.imUid(u.uid)] = u.username }
        // Who is here is the answer's; the backlog's notices only name people.
        learn(entered.messages, me: me, L, presence: false)
    }

    var id: String { info.conversationId }

    /// The list's row and the chat's conversation: no unread count, ever.
    var conversation: Conversation {
        Conversation(id: info.conversationId, targetUid: 0, nickname: info.name, lastMessagePreview: preview,
                     lastMessageTime: lastTime, maxSeq: lastSeq, readSeq: lastSeq, memberCount: info.presentCount)
    }

    /// Those present as a chat's members (`@` completion, mentions): the owner first.
    var members: [GroupMember] {
        present.map { u in
            GroupMember(uid: u.uid, username: u.username, role: ConversationIDHelper.imUid(u.uid) == info.ownerId ? "owner" : "member",
                        joinedAt: 0, account: u.account)
        }.sorted { $0.isOwner && !$1.isOwner }
    }

    func isOwner(_ me: String) -> Bool { info.ownerId == me }

    /// Messages that came (oldest first): names, presence (unless they are
    /// an old stretch filling a gap), the preview (from the newest message
    /// said), the newest seq. Returns whether I was removed or the room
    /// dropped, and whether someone else said something (not a notice, not
    /// a revoke's control message): news that makes the row bold.
    @discardableResult
    mutating func learn(_ messages: [WireMessage], me: String, _ L: Localizer,
                        presence: Bool = true) -> (ended: Bool, news: Bool) {
        var ended = false, news = false
        for m in messages {
            let newest = m.seq > lastSeq
            lastSeq = max(lastSeq, m.seq)
            guard ContentType.isRoomNotice(m.contentType) else {
                let said = IMMessageMapper.map(m, currentUID: me)
                guard !said.isControl else { continue }
                if m.sendID != me { news = true }
                if newest {
                    lastTime = m.sendTime
                    preview = MessageKinds.summary(of: said, localizer: L)
                }
                continue
            }
            guard let p = GroupNoticePayload(contentType: m.contentType, jsonText: m.content) else { continue }
            names.merge(p.userNames) { _, new in new }
            guard presence else { continue }
            switch m.contentType {
            case ContentType.roomEntered:
                if let uid = ConversationIDHelper.uid(fromImUid: p.opUser), !present.contains(where: { $0.uid == uid }) {
                    present.append(UserBasicInfo(uid: uid, username: p.userNames[p.opUser] ?? p.opUser))
                }
            case ContentType.roomLeft:
                present.removeAll { ConversationIDHelper.imUid($0.uid) == p.opUser }
            case ContentType.roomKicked:
                present.removeAll { p.users.contains(ConversationIDHelper.imUid($0.uid)) }
                if p.users.contains(me) { ended = true }
            case ContentType.roomDropped:
                ended = true
            default:
                break
            }
        }
        return (ended, news)
    }
}

/// `n` → 房间目录: rooms found for a query, most present first.
struct RoomDirectory: Equatable {
    var query = ""
    /// nil until the server answered for `query`.
    var rooms: [RoomInfo]?
    var index = 0
}

/// `n` → 创建房间: the name typed in `n`, then the unique name and a topic.
struct NewRoomForm: Equatable {
    enum Field: Equatable { case unique, topic }
    var name: String
    var unique = ""
    var topic = ""
    var field = Field.unique
}

/// `,` in a room: who is here (the owner picks one to remove), or, after
/// `u`, whom the owner banned (to let back in).
struct RoomPage: Equatable {
    var selected = 0
    /// The banned, once read (nil: the page shows who is here).
    var bans: [UserBasicInfo]?
}

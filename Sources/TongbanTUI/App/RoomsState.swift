import ChatCore
import ChatSync
import Foundation

/// A room I am in (PROTOCOL.md v3 "Rooms"): while I am there, it sits at
/// the top of the list; quitting or losing the connection leaves it, and
/// the client enters again when the connection comes back. Being there
/// (who is here, the seqs held, the gaps to fill) is ChatSync's
/// `RoomPresence`, the same as `tongban room enter`'s; the row is this.
struct RoomEntry: Equatable {
    var presence: RoomPresence
    /// Something was said here that I have not seen: the row is bold.
    var unseen = false
    var preview = ""
    /// Unix milliseconds of the newest message.
    var lastTime = 0

    init(_ entered: EnterRoomResponse, me: String, _ L: Localizer) {
        presence = RoomPresence(entered)
        heard(entered.messages, after: 0, me: me, L)
    }

    var info: RoomInfo {
        get { presence.info }
        set { presence.info = newValue }
    }
    var present: [UserBasicInfo] { presence.present }
    var names: [String: String] { presence.names }
    var lastSeq: Int { presence.lastSeq }
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

    /// What the row shows of messages that came (oldest first) after the
    /// seq `held`: the preview of the newest said, and whether someone else
    /// said something (not a notice, not a revoke's control message): news
    /// that makes the row bold.
    @discardableResult
    mutating func heard(_ messages: [WireMessage], after held: Int, me: String, _ L: Localizer) -> Bool {
        var news = false, newest = held
        for m in messages {
            let isNewest = m.seq > newest
            newest = max(newest, m.seq)
            guard !ContentType.isRoomNotice(m.contentType) else { continue }
            let said = IMMessageMapper.map(m, currentUID: me)
            guard !said.isControl else { continue }
            if m.sendID != me { news = true }
            if isNewest {
                lastTime = m.sendTime
                preview = MessageKinds.summary(of: said, localizer: L)
            }
        }
        return news
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

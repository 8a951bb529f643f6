import ChatCore

/// Being in a room (PROTOCOL.md v3 "Rooms"): who is here, the names of
/// everyone seen, and the newest seq held, with what to fetch when a push
/// skips seqs or the connection comes back. A value with no I/O: the
/// full-screen client keeps one per room in its state and `tongban room
/// enter` one for its room; both ask `Session` for what it needs
/// (`Session.fillRoom`, `roomPresent`) and keep what comes in the store.
public struct RoomPresence: Sendable, Equatable {
    public var info: RoomInfo
    /// Who is here now, as entering answered and the notices since said.
    public var present: [UserBasicInfo]
    /// Display names by imUid of everyone seen here, present or gone.
    public var names: [String: String] = [:]
    /// The newest seq held: a push past it fills the gap from history.
    public var lastSeq = 0

    /// What it needs fetched.
    public enum Need: Sendable, Equatable {
        /// The messages between two seqs (both left out), from history.
        case fill(after: Int, before: Int)
        /// Who is here, asked again: a gap held comings and goings.
        case present
    }

    /// How being here ended, as a notice said.
    public enum Ending: Sendable, Equatable { case removed, dropped }

    /// Just entered: who is here is the answer's; the backlog's notices only name people.
    public init(_ entered: EnterRoomResponse) {
        info = entered.room
        present = entered.present
        for u in entered.present { names[ConversationIDHelper.imUid(u.uid)] = u.username }
        learn(entered.messages, me: "", presence: false)
    }

    public var conversationId: String { info.conversationId }

    /// Right after entering: a push between the server's enter and its
    /// answer was for a room not known yet, so it is asked for again.
    public var afterEntering: [Need] { [.fill(after: lastSeq, before: .max)] }

    /// Entered again after a reconnect (offline was left): the answer over
    /// what was known, and what was said while away.
    public mutating func enteredAgain(_ entered: EnterRoomResponse) -> [Need] {
        let before = lastSeq
        info = entered.room
        present = entered.present
        for u in entered.present { names[ConversationIDHelper.imUid(u.uid)] = u.username }
        learn(entered.messages, me: "", presence: false)
        guard let oldest = entered.messages.first?.seq, before > 0, oldest > before + 1 else { return [] }
        return [.fill(after: before, before: oldest)]
    }

    /// A pushed message: a seq past a gap asks for the gap (the caller
    /// fetches it before keeping this one), then what it says is learnt.
    public mutating func pushed(_ m: WireMessage, me: String) -> (needs: [Need], ended: Ending?) {
        let needs: [Need] = lastSeq > 0 && m.seq > lastSeq + 1 ? [.fill(after: lastSeq, before: m.seq)] : []
        return (needs, learn([m], me: me))
    }

    /// A gap's messages (old: they name people but say nothing of who is
    /// here now); who is here is asked again if people came or went in it.
    public mutating func filled(_ messages: [WireMessage]) -> [Need] {
        learn(messages, me: "", presence: false)
        let movements = [ContentType.roomEntered, ContentType.roomLeft, ContentType.roomKicked]
        return messages.contains { movements.contains($0.contentType) } ? [.present] : []
    }

    /// Who is here, as the server answered.
    public mutating func present(_ users: [UserBasicInfo]) {
        present = users
        for u in users { names[ConversationIDHelper.imUid(u.uid)] = u.username }
    }

    /// Messages that came (oldest first): names, the newest seq, and who
    /// is here (unless `presence` is false: an old stretch). Says whether
    /// I was removed or the room dropped.
    @discardableResult
    public mutating func learn(_ messages: [WireMessage], me: String, presence: Bool = true) -> Ending? {
        var ended: Ending?
        for m in messages {
            lastSeq = max(lastSeq, m.seq)
            guard ContentType.isRoomNotice(m.contentType),
                  let p = GroupNoticePayload(contentType: m.contentType, jsonText: m.content) else { continue }
            names.merge(p.userNames) { _, new in new }
            guard presence else { continue }
            switch m.contentType {
            case ContentType.roomEntered:
                if let uid = ConversationIDHelper.uid(fromImUid: p.opUser), !self.present.contains(where: { $0.uid == uid }) {
                    self.present.append(UserBasicInfo(uid: uid, username: p.userNames[p.opUser] ?? p.opUser))
                }
            case ContentType.roomLeft:
                self.present.removeAll { ConversationIDHelper.imUid($0.uid) == p.opUser }
            case ContentType.roomKicked:
                self.present.removeAll { p.users.contains(ConversationIDHelper.imUid($0.uid)) }
                if p.users.contains(me) { ended = .removed }
            case ContentType.roomDropped:
                ended = .dropped
            default:
                break
            }
        }
        return ended
    }
}

import ChatCore
import ChatViewModels

/// People (PROTOCOL.md v3) as the screen holds them: friends and pending
/// requests as the store has them, whom I blocked as the server said last.
struct PeopleState: Equatable {
    var contacts: [Contact] = []
    var requests: [FriendRequest] = []
    var blocked: [UserBasicInfo] = []
    /// Rooms I own or entered lately (v4 `/room/mine`), as the server last said.
    var rooms: [RoomInfo] = []
    /// My uid, to tell requests to me from mine.
    var myUid = 0

    var incoming: [FriendRequest] { requests.filter { $0.to.uid == myUid } }
    var outgoing: [FriendRequest] { requests.filter { $0.from.uid == myUid } }
    func contact(_ uid: Int) -> Contact? { contacts.first { $0.uid == uid } }
    func isBlocked(_ uid: Int) -> Bool { blocked.contains { $0.uid == uid } }
    var blockedImUids: Set<String> { Set(blocked.map { ConversationIDHelper.imUid($0.uid) }) }
}

/// The contacts view (通讯录): sections 新的朋友, 好友, 群聊, 房间, 黑名单, filtered
/// by what is typed.
struct ContactsView: Equatable {
    var query = ""
    var index = 0
    /// Whether the user moved the selection: until then it follows the
    /// first row, as what the store and server answer fills the view.
    var moved = false

    /// One line of the view.
    enum Row: Equatable {
        case heading(String)
        case request(FriendRequest)
        /// A request of mine still waiting (shown under 新的朋友, not actionable).
        case waiting(FriendRequest)
        case friend(Contact)
        case group(Conversation)
        /// A room I own or entered lately: Enter enters it.
        case room(RoomInfo)
        case blocked(UserBasicInfo)
        /// "Nothing here" under a heading.
        case empty(String)

        var selectable: Bool {
            switch self {
            case .heading, .empty, .waiting: return false
            default: return true
            }
        }
    }

    /// Every row for `people` and the conversation list, filtered by `query`
    /// (name, remark, account; case-blind), friends in pinyin order.
    static func rows(_ people: PeopleState, groups: [Conversation], query: String, _ L: Localizer) -> [Row] {
        let q = query.trimmingCharacters(in: .whitespaces).lowercased()
        func matches(_ names: String?...) -> Bool {
            q.isEmpty || names.contains { name in
                let pinyin = ContactOrder.key(name ?? "")
                return (name ?? "").lowercased().contains(q) || pinyin.contains(q) || pinyin.filter { $0 != " " }.contains(q)
            }
        }
        var rows: [Row] = [.heading(L.string("people.section.new"))]
        let incoming = people.incoming.filter { matches($0.from.username, $0.from.account) }
        let waiting = people.outgoing.filter { matches($0.to.username, $0.to.account) }
        rows += incoming.map(Row.request) + waiting.map(Row.waiting)
        if incoming.isEmpty && waiting.isEmpty { rows.append(.empty(L.string("people.section.noNew"))) }
        rows.append(.heading(L.string("people.section.friends")))
        let friends = ContactOrder.sorted(people.contacts.filter { matches($0.remark, $0.username, $0.account) })
        rows += friends.map(Row.friend)
        if friends.isEmpty { rows.append(.empty(L.string("people.noFriends"))) }
        rows.append(.heading(L.string("people.section.groups")))
        let shown = groups.filter { $0.isGroup && $0.isMember && matches($0.nickname) }
            .sorted { ContactOrder.key($0.nickname) < ContactOrder.key($1.nickname) }
        rows += shown.map(Row.group)
        if shown.isEmpty { rows.append(.empty(L.string("people.section.noGroups"))) }
        rows.append(.heading(L.string("people.section.rooms")))
        let rooms = people.rooms.filter { matches($0.name, $0.uniqueName) }
        rows += rooms.map(Row.room)
        if rooms.isEmpty { rows.append(.empty(L.string("people.section.noRooms"))) }
        rows.append(.heading(L.string("people.section.blocked")))
        let blocked = people.blocked.filter { matches($0.username, $0.account) }
        rows += blocked.map(Row.blocked)
        if blocked.isEmpty { rows.append(.empty(L.string("people.noBlocks"))) }
        return rows
    }

    /// The nearest selectable row from `index` on (then before it).
    static func settle(_ index: Int, in rows: [Row]) -> Int {
        if let next = rows.indices.dropFirst(max(0, index)).first(where: { rows[$0].selectable }) { return next }
        return rows.indices.prefix(max(0, index)).last(where: { rows[$0].selectable }) ?? 0
    }

    /// The next selectable row after (or before) `index`, or `index`.
    static func step(_ index: Int, by delta: Int, in rows: [Row]) -> Int {
        var i = index + delta
        while i >= 0 && i < rows.count {
            if rows[i].selectable { return i }
            i += delta
        }
        return index
    }
}

/// 添加好友 in the `n` dialog: a search, its results, then the person's card
/// with the words to send along.
struct AddFriendForm: Equatable {
    var query = ""
    /// What the search for `query` found; nil until it ran.
    var found: [UserBasicInfo]?
    var index = 0
    /// The person whose card is shown, and the request's words being typed.
    var card: UserBasicInfo?
    var message = ""
}

/// 我的信息: my profile, the strangers switch, my devices, changing the
/// password, logging out.
struct MyPage: Equatable {
    enum Field: Equatable { case name, signature, avatar }
    /// The page's on/off settings (PROTOCOL.md v3 strangers, v4 typing and reads).
    enum Switch: CaseIterable, Equatable { case strangers, typing, reads }
    enum Ask: Equatable {
        case signOutDevice(SessionInfo)
        case logout
    }
    /// One selectable line of the page.
    enum Row: Equatable {
        case field(Field)
        case setting(Switch)
        case device(SessionInfo)
        case password
        case logout
    }

    var profile: UserBasicInfo?
    /// As the server last said; nil until read.
    var settings: UserSettings?
    var devices: [SessionInfo] = []
    var index = 0
    /// The field being edited and its text so far.
    var editing: Field?
    var text = ""
    /// A y/N question on the page's last line.
    var asking: Ask?
    /// The password being changed (v4), nil when not.
    var password: PasswordForm?

    var rows: [Row] {
        [.field(.name), .field(.signature), .field(.avatar)] + Switch.allCases.map(Row.setting) + devices.map(Row.device)
            + [.password, .logout]
    }
}

/// Changing my password on my page (v4): the current one, the new one and
/// the new one again, asked in turn. The screen draws a star per
/// character, never the characters.
struct PasswordForm: Equatable {
    enum Step: Equatable, CaseIterable { case current, new, again }
    var step = Step.current
    var current = ""
    var new = ""
    var again = ""

    /// What is typed at `step`.
    var typed: String {
        get { self[step] }
        set { self[step] = newValue }
    }

    subscript(step: Step) -> String {
        get {
            switch step {
            case .current: current
            case .new: new
            case .again: again
            }
        }
        set {
            switch step {
            case .current: current = newValue
            case .new: new = newValue
            case .again: again = newValue
            }
        }
    }
}

/// A peer's page (`,` in a single chat): who they are to me and what I can do.
struct PeerPage: Equatable {
    enum Ask: Equatable { case removeFriend, block }
    var user: UserBasicInfo
    /// The names of groups we are both in.
    var sharedGroups: [String] = []
    /// The remark being typed (`m`), nil when not editing.
    var remark: String?
    var asking: Ask?
    /// v4: the safety number with them (nil: either has no device with keys,
    /// or the server could not be asked), and whether I marked it verified.
    var safetyNumber: String?
    var verified = false
    /// v4: our secret chat, if there is one, and its disappearing-message timer.
    var secretChat: String?
    var timer = 0

    /// The timer's choices in order: off, 30 s, 5 min, 1 h, 1 d.
    static let timers = [0, 30, 300, 3600, 86400]
}

/// A conversation as the list and the chat screen see it (seed 000 §一).
///
/// Identity is the conversation id alone: two values with the same id are the
/// same conversation, whatever their other fields say (as in the seed).
public struct Conversation: Identifiable, Hashable, Sendable, Codable {
    /// `si_{imUid1}_{imUid2}`, see ``ConversationIDHelper``.
    public let id: String
    public let targetUid: Int
    public var nickname: String
    public var avatar: String
    public var isOnline: Bool = false

    // Signal context (set when the chat is opened from a signal).
    public var fromSignal: Bool = false
    public var signalId: Int? = nil
    public var receiveId: String? = nil
    /// The peer's reply text; the first message quotes it.
    public var signalReply: String? = nil
    /// The original signal text.
    public var signalContent: String? = nil

    // State.
    /// Whether the signal quote has been sent already.
    public var isImOpened: Bool = false
    public var isPinned: Bool = false
    public var draftText: String? = nil

    // List display.
    public var unreadCount: Int = 0
    public var lastMessagePreview: String = ""
    /// Unix milliseconds.
    public var lastMessageTime: Int = 0

    // Sync bookkeeping (not in the seed's struct, needed by a local store).
    public var maxSeq: Int = 0
    public var readSeq: Int = 0
    /// Pin time in Unix milliseconds; pinned rows sort by it among themselves.
    public var pinnedAt: Int = 0

    // PROTOCOL.md v2.
    /// No bell or notification, except for a mention (seed 003 `muted`).
    public var isMuted: Bool = false
    /// The newest seq that mentioned me; `[有人@我]` while it is unread.
    public var mentionSeq: Int = 0
    /// Groups only.
    public var groupId: Int? = nil
    public var memberCount: Int = 0
    /// Groups: false once I left or was removed.
    public var isMember: Bool = true
    /// v4, one-to-one: the peer read my messages up to here; nil when reads are not shared.
    public var peerReadSeq: Int? = nil

    public var isGroup: Bool { groupId != nil }
    /// A live room (PROTOCOL.md v3 "Rooms"): in no list of the store, never unread.
    public var isRoom: Bool { ConversationIDHelper.isRoom(id) }
    /// A group or a room: messages name their senders, `@` names others.
    public var isMultiParty: Bool { isGroup || isRoom }
    /// Seed 003's `mentioned`: a mention I have not read yet.
    public var hasUnreadMention: Bool { mentionSeq > readSeq }

    public init(
        id: String, targetUid: Int, nickname: String, avatar: String = "",
        isOnline: Bool = false, fromSignal: Bool = false, signalId: Int? = nil,
        receiveId: String? = nil, signalReply: String? = nil, signalContent: String? = nil,
        isImOpened: Bool = false, isPinned: Bool = false, draftText: String? = nil,
        unreadCount: Int = 0, lastMessagePreview: String = "", lastMessageTime: Int = 0,
        maxSeq: Int = 0, readSeq: Int = 0, pinnedAt: Int = 0, isMuted: Bool = false, mentionSeq: Int = 0,
        groupId: Int? = nil, memberCount: Int = 0, isMember: Bool = true, peerReadSeq: Int? = nil
    ) {
        self.peerReadSeq = peerReadSeq
        self.id = id
        self.targetUid = targetUid
        self.nickname = nickname
        self.avatar = avatar
        self.isOnline = isOnline
        self.fromSignal = fromSignal
        self.signalId = signalId
        self.receiveId = receiveId
        self.signalReply = signalReply
        self.signalContent = signalContent
        self.isImOpened = isImOpened
        self.isPinned = isPinned
        self.draftText = draftText
        self.unreadCount = unreadCount
        self.lastMessagePreview = lastMessagePreview
        self.lastMessageTime = lastMessageTime
        self.maxSeq = maxSeq
        self.readSeq = readSeq
        self.pinnedAt = pinnedAt
        self.isMuted = isMuted
        self.mentionSeq = mentionSeq
        self.groupId = groupId ?? ConversationIDHelper.groupId(id)
        self.memberCount = memberCount
        self.isMember = isMember
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public static func == (lhs: Conversation, rhs: Conversation) -> Bool { lhs.id == rhs.id }

    /// The list's order, the one copy of it (the store's query sorts the
    /// same way): pinned first, the most recently pinned first among them
    /// (seed 003 `stickTime`), then the newest message first. Ties fall back
    /// to the id so the order is stable between refreshes.
    /// When a row pinned now counts as pinned, given the latest pin so far:
    /// now, or just after that pin if the clock says otherwise (two pins in
    /// one millisecond, a clock set back), so the latest pinned is first.
    public static func pinTime(now: Int, latestPin: Int) -> Int { max(now, latestPin + 1) }

    public static func listOrder(_ a: Conversation, _ b: Conversation) -> Bool {
        if a.isPinned != b.isPinned { return a.isPinned }
        if a.isPinned && a.pinnedAt != b.pinnedAt { return a.pinnedAt > b.pinnedAt }
        if a.lastMessageTime != b.lastMessageTime { return a.lastMessageTime > b.lastMessageTime }
        return a.id > b.id
    }
}

import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Seed §六's chat as a value: everything one open chat shows and the
/// bookkeeping behind it. `update` (ChatState+Update.swift) is the only
/// thing that changes it, one `ChatEvent` at a time, and answers with the
/// `ChatEffect`s it wants performed; `ChatEffects` performs them and
/// answers with events. The full-screen client keeps this value inside its
/// `AppState`; `ConversationViewModel` runs the same loop for other hosts.
public struct ChatState: Sendable {
    public static let pageSize = 40

    public var conversation: Conversation
    /// Newest first (index 0 is the newest), with time markers, as in the
    /// seed. Derived from the window's page on every read; settable so a
    /// screen test can draw fixed messages.
    public var messages: [ChatMessage] = []
    public var isLoading = false
    public var hasMoreHistory = true
    public var newMessageBannerCount = 0
    /// Whether the newest message is in view (`.scrolled(toBottom:)`).
    public internal(set) var isAtBottom = true
    /// Object keys of this chat's pictures that are in the local cache.
    public var cachedKeys: Set<String> = []
    /// Groups: display names by imUid (members, then cached profiles).
    public var senderNames: [String: String] = [:]
    /// Owner first, then by joining time.
    public var members: [GroupMember] = []
    public var group: GroupInfo?
    /// My imUid (a notice about me reads "你").
    public let me: String
    /// Between `.appear` and `.disappear`.
    public internal(set) var isVisible = false
    /// Which opening of the chat this is (the host counts them): answers of
    /// an earlier opening's effects, still on their way, are not this one's.
    public var generation = 0

    /// A chat's opening: its id and generation.
    public struct Ref: Hashable, Sendable {
        public var id: String
        public var generation: Int
    }

    public var ref: Ref { Ref(id: id, generation: generation) }

    // MARK: Bookkeeping

    /// Which stored messages are shown (grows with paging back, and while
    /// scrolled up, with what arrives).
    public internal(set) var window = ChatWindow(count: pageSize)
    /// The window as last read.
    var page = MessagePage(messages: [], lowestSeq: nil)
    /// While scrolled up: the newest seq in view when the reader left the
    /// bottom; the banner counts what came after it.
    var bannerAfterSeq: Int?
    /// Upload progress by message id (not in the store).
    var progress: [String: Double] = [:]
    /// Freshly signed media URLs by object key.
    var resolvedURLs: [String: String] = [:]
    /// Whether the group's names, members and info must be read again:
    /// only when a sync said the group changed, not on every new message
    /// (a flood in a large group would reread its member list per pull).
    var groupStale = true
    /// The read position the server should hear of, and whether a request
    /// is on its way: during a flood one request at a time carries the
    /// newest seq instead of one request per incoming page.
    var readWanted = 0
    var readInFlight = false
    /// The newest read position the server acknowledged.
    var readAcked = 0
    /// The pictures of the next read are to be signed and fetched again
    /// (after opening, paging back, a jump): the read says which they are.
    var mediaAfterRead = false
    /// Messages whose media were handed to be signed and fetched: a read
    /// that brings one not among them (a picture just arrived) asks for it.
    var mediaAsked: Set<String> = []

    /// A chat about to appear (`.appear` reads it), or, with the rest
    /// given, one drawn as it is (screen tests: no window behind it).
    public init(conversation: Conversation, messages: [ChatMessage] = [], isLoading: Bool = false, hasMoreHistory: Bool = true,
                newMessageBannerCount: Int = 0, cachedKeys: Set<String> = [], senderNames: [String: String] = [:],
                members: [GroupMember] = [], group: GroupInfo? = nil, me: String) {
        self.conversation = conversation
        self.messages = messages
        self.isLoading = isLoading
        self.hasMoreHistory = hasMoreHistory
        self.newMessageBannerCount = newMessageBannerCount
        self.cachedKeys = cachedKeys
        self.senderNames = senderNames
        self.members = members
        self.group = group
        self.me = me
    }

    public var id: String { conversation.id }
    public var isOwner: Bool { group?.ownerId == me }
    /// Messages that are not time markers.
    var visibleCount: Int { messages.filter { $0.type != .time }.count }
}

/// Something that happened to a chat: the user, the store, the sync or the
/// answer of an effect.
public enum ChatEvent: Sendable {
    /// The chat came on screen.
    case appear
    /// It left the screen; `draft` is what was typed and not sent.
    case disappear(draft: String?)
    /// A read of the window (the answer of `.readWindow`).
    case windowRead(WindowRead)
    /// A commit that may change what the chat shows, by anyone.
    case storeChanged
    case sync(SyncUpdate)
    /// The send queue's upload progress of one message.
    case progress(messageId: String, Double)
    /// Missing history was fetched on appearing (nil: nothing was learnt
    /// about older history).
    case filled(hasMoreHistory: Bool?)
    case scrolled(toBottom: Bool)
    /// Paging back: the user asked for older messages.
    case loadMore
    /// Paging back's answer: the window that holds them.
    case pagedBack(ChatWindow, hasMoreHistory: Bool?)
    /// Jump to a message (a search hit): `count` stored messages from it to the newest.
    case revealed(count: Int)
    /// Everything up to `seq` was marked read here.
    case markedRead(seq: Int)
    /// The server heard of the read position `seq`.
    case readSent(seq: Int)
    /// URLs signed again, by object key.
    case mediaResolved([String: String])
    /// An object reached the local cache.
    case cached(key: String)
    /// The group changed (an action of mine, or the server's list).
    case groupChanged
    /// A message of mine went into the queue: show the newest.
    case sent
    /// Revoke: shown at once, before the server answers.
    case revoking(messageId: String)
    /// The history was cleared.
    case cleared
    /// Something failed, or worked and shows nowhere else: for the host to word.
    case told(Told)
}

/// What `ChatEffects.read` found: the window's page and what goes with it.
public struct WindowRead: Sendable {
    public var conversationId: String
    public var window: ChatWindow
    public var page: MessagePage
    public var conversation: Conversation?
    public var cachedKeys: Set<String>
    /// Read when the group was stale.
    public var group: GroupRead?

    public init(conversationId: String, window: ChatWindow, page: MessagePage, conversation: Conversation?,
                cachedKeys: Set<String>, group: GroupRead?) {
        self.conversationId = conversationId; self.window = window; self.page = page
        self.conversation = conversation; self.cachedKeys = cachedKeys; self.group = group
    }

    public struct GroupRead: Sendable {
        public var senderNames: [String: String]
        public var members: [GroupMember]
        public var info: GroupInfo?
    }
}

/// The I/O a chat's update asks for. Values only: tests read them.
public enum ChatEffect: Sendable, Equatable {
    /// Read the window (and the group's names and members when `group`).
    case readWindow(ChatWindow, group: Bool)
    /// Follow the store, the send queue's progress and the sync.
    case follow
    /// Stop following; keep `draft`; tell the server the read position
    /// `readMark` that it has not acknowledged yet.
    case stopFollowing(draft: String?, readMark: Int?)
    /// Fill holes among the newest messages from the server.
    case fillFromServer
    /// Page back from `window` (its page's lowest seq and size given).
    case pageBack(PageBack)
    case reveal(seq: Int)
    case markRead
    case sendReadMark(seq: Int)
    /// Sign URLs again and fetch pictures into the cache (never flash images).
    case refreshMedia([ChatMessage])
    case refreshMembers
    case sendSignalQuote
}

/// Where paging back starts.
public struct PageBack: Sendable, Equatable {
    public var window: ChatWindow
    public var lowestSeq: Int?
    public var loaded: Int
    public var isAtBottom: Bool
}

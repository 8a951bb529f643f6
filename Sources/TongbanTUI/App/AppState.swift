import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// Which pane has the keyboard.
public enum PaneFocus: Equatable, Sendable { case list, messages, input }

/// Everything the screen shows, as a value: no closures, processes, tasks
/// or sessions. `Update.update` changes it, `Screen.render` draws it.
struct AppState {

    /// Overlays that take the keyboard.
    enum Mode: Equatable {
        case normal
        case confirm(Confirm)
        case listSearch(String)
        case messageSearch(MessageSearch)
        /// `n`: new chats, groups, friends and rooms.
        case newChat(NewChatDialog)
        /// "New group" chose a name; its unique name and members are being chosen.
        case newGroup(NewGroupForm)
        /// v4: signals in three tabs (`s`).
        case signals(SignalsView)
        /// v4: who read my group message and who has not (已读详情).
        case readers(ReadersPage)
        /// v3 rooms: the directory, the new-room form, a room's page (`,`).
        case roomDirectory(RoomDirectory)
        case newRoom(NewRoomForm)
        case roomPage(RoomPage)
        /// v3 (seed 004's long-press menu): what the selected message allows,
        /// and the item highlighted.
        case actions(Pick<MenuItem>)
        /// v3: forwarding messages to conversations picked.
        case forward(ForwardPicker)
        /// v3: a merged forward's whole record, scrolled to an item.
        case record(MergedPayload, Int)
        /// v3: my favourites, newest first, and the one selected.
        case favorites(Pick<Favorite>)
        /// One favourite's page (v4).
        case favorite(FavoritePage)
        /// `,`: in a group, the selected member (the one `x` removes).
        case settings(member: Int)
        /// v3 people: the contacts view, adding a friend, my page, a peer's page.
        case contacts(ContactsView)
        case addFriend(AddFriendForm)
        case me(MyPage)
        case peer(PeerPage)
        case help
        /// v4: the emoji grid (Ctrl-G in the input bar).
        case emoji(EmojiGrid)
        /// `/rec`: a recorder is writing into `file` since `since`.
        case recording(file: URL, since: Date)
        /// A flash image on screen: its pixels live only in this value.
        case flash(ChatMessage, since: Date, RGBImage)
        /// Enter on an image: picture `index` of the message, full screen.
        case picture(ChatMessage, index: Int, RGBImage)
        /// `o` on a message holding several things: which to open.
        case open(Pick<Openable>)

        /// Whether something on screen counts seconds.
        var countsSeconds: Bool {
            switch self {
            case .flash, .recording: return true
            default: return false
            }
        }
    }

    /// The new-group form: the unique name, then members found by search.
    struct NewGroupForm: Equatable {
        enum Field: Equatable { case unique, members }
        var name: String
        var unique = ""
        var field = Field.unique
        /// The member search being typed.
        var query = ""
        /// What the search for `query` found; nil until it ran.
        var found: [UserBasicInfo]?
        var index = 0
        var members: [UserBasicInfo] = []

        /// First the unique name (`[a-z0-9_]`, 3-32; Enter or Tab goes on),
        /// then members: a name and Enter searches, ↑/↓ and Enter add or
        /// drop the one found, Backspace on an empty search drops the last
        /// added, and Enter on an empty search creates the group. Tab goes back.
        mutating func update(_ key: Key) -> Step {
            var step = Step.stay
            switch (field, key) {
            case (_, .escape): return .close()
            case (.unique, .tab), (.unique, .enter):
                if GroupRules.isValidUniqueName(unique) { field = .members }
            case (.members, .tab), (.members, .backTab):
                field = .unique
            case (.unique, .backspace):
                unique = String(unique.dropLast())
            case (.unique, .char(let c)):
                GroupRules.type(c, into: &unique)
            case (.members, .enter):
                if let found, index < found.count {
                    let user = found[index]
                    if let at = members.firstIndex(where: { $0.uid == user.uid }) { members.remove(at: at) } else { members.append(user) }
                    query = ""
                    self.found = nil
                } else if !query.trimmingCharacters(in: .whitespaces).isEmpty {
                    step = .effects([.searchUsers(query)])
                } else {
                    return .close([.createGroup(name: name, unique: unique, members: members.map(\.uid))])
                }
            case (.members, .down):
                index = min(index + 1, max(0, (found?.count ?? 0) - 1))
            case (.members, .up):
                index = max(0, index - 1)
            case (.members, .backspace):
                if query.isEmpty { _ = members.popLast() } else { query.removeLast() }
                found = nil
            case (.members, .char(let c)):
                query.append(c)
                found = nil
            case (.members, .paste(let text)):
                query += TerminalSanitizer.oneLine(text)
                found = nil
            default:
                break
            }
            if found == nil { index = 0 }
            return step
        }
    }

    /// What `y` answers in a confirmation on the status line.
    enum Confirm: Equatable {
        case deleteConversation(id: String, name: String)
        /// `d` on a group I am in: `y` leaves and deletes, `k` only deletes.
        case leaveGroup(id: String, name: String)
        /// `x` on a member in a group's settings (owner only).
        case kick(uid: Int, name: String)
        /// `D` on a group's page (owner only, PROTOCOL.md v4): everyone is out.
        case dissolveGroup(name: String)
        case revoke(messageId: String)
        /// `x` on a failed message: it goes, and what it held is sent.
        case discard(messageId: String)
        /// v3: a message the server has, deleted for me only.
        case deleteForMe(messageIds: [String])
        case viewFlash(ChatMessage)
        case clearHistory
        /// v3 rooms: `d` on a room, `l` on its page; the owner's removal (with
        /// a ban or not) and dropping the room.
        case leaveRoom(roomId: Int, name: String)
        case roomKick(roomId: Int, uid: Int, name: String, ban: Bool)
        case dropRoom(roomId: Int, name: String)
    }

    /// A message found by `/` in the list, in any conversation (v3).
    struct GlobalHit: Equatable, Sendable {
        var conversationId: String
        var conversationName: String
        var clientMsgId: String
        var seq: Int
        var sendTime: Int
        var text: String
    }

    /// A message found by `/` in a chat.
    struct SearchHit: Equatable, Sendable {
        var clientMsgId: String
        var seq: Int?
        var sendTime: Int
        var isMine: Bool
        var text: String
    }

    /// A decoded thumbnail, or why there is none yet.
    enum Thumbnail: Equatable {
        case pending
        case ready(RGBImage)
        /// The picture cannot be decoded: its bubble stays text.
        case undecodable
        /// The decoder timed out or could not start: asked again later.
        case retryLater
    }

    var focus: PaneFocus = .list
    var mode: Mode = .normal
    var listIndex = 0
    /// The last left click, to tell a double click (`Update.mouse`).
    var lastClick: Click?
    struct Click: Equatable {
        var x: Int
        var y: Int
        var at: Date
    }
    /// The selected message, by id: a message arriving (or history loading)
    /// never moves the selection onto a neighbour, so `R` and Enter act on
    /// the message the user picked.
    var selectedId: String?
    /// Lines scrolled up from the bottom of the message pane (as asked; the
    /// message list clamps it and keeps the selection in view).
    var scroll = 0
    var input = InputLine()
    /// A message of mine being edited in the input bar (v3), and what the
    /// bar held before: given back when the edit is saved or dropped.
    var editing: Editing?
    struct Editing: Equatable {
        var messageId: String
        var original: String
        var stashed: InputLine
    }
    /// One line of the message menu: the action it runs and its key.
    struct MenuItem: Equatable {
        var action: Action
        var key: String
        var title: String
    }

    /// The message the next send replies to (v3), as the bar above the input names it.
    var replying: Replying?
    struct Replying: Equatable {
        var messageId: String
        var senderName: String
        var firstLine: String
    }
    /// v3 multi-select (`v`): the messages marked with Space, nil when not selecting.
    var marked: [String]?
    /// The messages `/` in the list found for its query (below the conversations whose names match).
    var listHits: [GlobalHit] = []
    /// Ctrl-X was pressed in the input bar: Ctrl-E next opens the editor.
    var awaitingCtrlE = false
    /// What was typed and not sent (an edit in progress aside): the chat's draft.
    var draft: String { editing?.stashed.text ?? input.text }
    /// Members picked with `@` completion for the text being typed (imUids),
    /// and whether `@all` was picked.
    var mentions: [String] = []
    var mentionsAll = false
    var status: String?
    /// When the bell last rang: one batch that both raises the unread total
    /// and mentions me in a muted group rings once.
    var lastRingAt: Date?
    var connection: ConnectionState = .connecting
    /// The store's disk was full at the last pull (shown until a pull fits).
    var storeFull = false
    /// Whether only one pane fits (narrow terminal); which one shows.
    var narrowShowsMessages = false
    var wantsQuit = false
    /// The server ended this login: the client goes back to sign-in.
    var signedOut = false
    /// Friends, requests and blocks (v3), as the store and server last said.
    var people = PeopleState()
    /// Messages of blocked senders opened from their folded line.
    var unfolded: Set<String> = []
    /// The conversation list, changed only by `ListState.update` (through `Update`).
    var list = ListState()
    /// The rooms I am in and those being entered again (`RoomsState`,
    /// changed only by its update, through `Update+Rooms`).
    var joined = RoomsState()
    /// The rooms I am in, in the order entered: the list's first rows.
    var rooms: [RoomEntry] {
        get { joined.entries }
        set { joined.entries = newValue }
    }
    /// The open chat: its whole state, changed only by `ChatState.update`
    /// (through `Update`), whose effects the runner performs.
    var chat: ChatState?
    /// How many chats were opened: each opening's generation.
    var openings = 0
    /// The input shows the opened chat's draft as the store has it, once
    /// its first read arrives (the list's row may not have caught up).
    var draftFromStore = false
    /// Who is typing, and my group messages' read counts (v4).
    var live = LiveState()
    /// The voice message being played.
    var playingId: String?
    var thumbnails: [String: Thumbnail] = [:]
    /// The time on screen (time labels, countdowns), set before each update.
    var now = Date(timeIntervalSince1970: 0)
    /// A fixed time zone for time labels (tests); nil is the user's.
    var utcOffsetSeconds: Int?
    /// The terminal's size at the last frame.
    var size = Size(width: 80, height: 24)
    var keyMap = KeyMap()
    /// The user's name (search hits by me).
    var myName = ""
    var myImUid = ""
    /// `@all` as the text spells it ("@所有人").
    var allMentionLabel = "all"

    struct Size: Equatable { var width: Int; var height: Int }

    /// The list's rows: the rooms I am in, then the conversations.
    var visibleConversations: [Conversation] {
        let all = rooms.map(\.conversation) + list.conversations
        if case .listSearch(let q) = mode { return ListState.filter(all, by: q) }
        return all
    }

    /// The room of a conversation id, if I am in it.
    func room(_ id: String) -> RoomEntry? { rooms.first { $0.id == id } }

    /// Bubbles newest first (no time markers).
    /// The messages drawn as bubbles (selectable): not time markers, not a group's notices.
    var bubbles: [ChatMessage] {
        chat?.messages.filter { $0.type != .time && $0.type != .groupNotice && $0.type != .secretNotice } ?? []
    }

    /// The selected message's position among bubbles, newest = 0.
    var selected: Int? {
        get { selectedId.flatMap { id in bubbles.firstIndex { $0.id == id } } }
        set {
            let list = bubbles
            selectedId = newValue.flatMap { $0 >= 0 && $0 < list.count ? list[$0].id : nil }
        }
    }

    var selectedMessage: ChatMessage? {
        guard let id = selectedId else { return nil }
        return chat?.messages.first { $0.id == id }
    }

    /// Whether the screen changes from second to second: a countdown, or
    /// someone typing (their mark goes when its time runs out).
    var needsSecondTicks: Bool { mode.countsSeconds || live.anyoneTyping }

    /// Unread of conversations not muted (the list's total).
    var titleText: String { list.totalUnread > 0 ? "(\(list.totalUnread)) Tongban" : "Tongban" }
}

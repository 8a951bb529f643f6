import ChatCore
import TerminalUI

/// What a key does. The raw values are the names `keys.json` uses.
enum Action: String, CaseIterable, Sendable {
    case listDown = "list.down", listUp = "list.up", listTop = "list.top", listBottom = "list.bottom"
    case listOpen = "list.open", listPin = "list.pin", listDelete = "list.delete", listNew = "list.new"
    case listMute = "list.mute"
    case listContacts = "list.contacts", listMe = "list.me"
    case listSignals = "list.signals", listFavorites = "list.favorites", listSearch = "list.search", listRefresh = "list.refresh", listBack = "list.back"
    case messagesUp = "messages.up", messagesDown = "messages.down", messagesPageUp = "messages.pageUp"
    case messagesPageDown = "messages.pageDown", messagesBottom = "messages.bottom", messagesEnter = "messages.enter"
    case messagesOpen = "messages.open", messagesRevoke = "messages.revoke", messagesDiscard = "messages.discard"
    case messagesType = "messages.type", messagesEdit = "messages.edit", messagesReply = "messages.reply"
    case messagesFavorite = "messages.favorite", messagesCopy = "messages.copy", messagesMenu = "messages.menu"
    case messagesForward = "messages.forward", messagesForwardMerged = "messages.forwardMerged", messagesSelect = "messages.select", messagesMark = "messages.mark"
    case messagesReact1 = "messages.react1", messagesReact2 = "messages.react2", messagesReact3 = "messages.react3"
    case messagesReact4 = "messages.react4", messagesReact5 = "messages.react5", messagesReact6 = "messages.react6"
    case messagesSettings = "messages.settings", messagesSearch = "messages.search", messagesBack = "messages.back"
    case messagesReaders = "messages.readers"
    /// v4: the secret chat with the one-to-one chat's peer (its list row, or the open chat).
    case secretChat = "global.secret"
    case inputSend = "input.send", inputNewline = "input.newline", inputLeave = "input.leave", inputEmoji = "input.emoji"
    case focusNext = "focus.next", focusPrevious = "focus.previous", help = "help", quit = "quit"
}

/// One row of the key table: the keys of an action in a scope and what it
/// does, as the help shows it. Rows without an action only document keys
/// handled elsewhere (the input line's editing keys, slash commands).
struct Binding: Sendable {
    enum Scope: String, Sendable, CaseIterable { case list, messages, input, everywhere }

    let scope: Scope
    let action: Action?
    let keys: [Key]
    /// The localised description; a documenting row's text is "keys<TAB>what".
    let help: String
    /// The status line's short word for it (localised), if it is shown
    /// there, and in which scopes' status lines.
    var hint: String?
    var hintIn: [Scope] = []
    /// How many of its keys the status line names.
    var hintKeys = 1
    /// What the status line names instead of the keys (a row of six: `1-6`).
    var hintKeysText: String?

    static func bind(_ scope: Scope, _ action: Action, _ keys: [Key], _ help: String,
                     hint: String? = nil, in hintScopes: [Scope]? = nil, keysShown: Int = 1) -> Binding {
        Binding(scope: scope, action: action, keys: keys, help: help, hint: hint, hintIn: hintScopes ?? [scope], hintKeys: keysShown)
    }
    static func document(_ scope: Scope, _ help: String, hint: String? = nil) -> Binding {
        Binding(scope: scope, action: nil, keys: [], help: help, hint: hint, hintIn: [scope])
    }

    /// Every key the client knows, in the order the help lists them. Actions
    /// that share a description share a help row.
    static let table: [Binding] = [
        bind(.list, .listDown, [.char("j"), .down], "help.list.move", hint: "hint.move"),
        bind(.list, .listUp, [.char("k"), .up], "help.list.move", hint: "hint.move"),
        bind(.list, .listTop, [.char("g"), .home], "help.list.ends"),
        bind(.list, .listBottom, [.char("G"), .end], "help.list.ends"),
        bind(.list, .listOpen, [.enter], "help.list.open", hint: "hint.open"),
        bind(.list, .listPin, [.char("p")], "help.list.pin", hint: "hint.pin"),
        bind(.list, .listMute, [.char("m")], "help.list.mute"),
        bind(.list, .listDelete, [.char("d")], "help.list.delete", hint: "hint.delete"),
        bind(.list, .listNew, [.char("n")], "help.list.new", hint: "hint.new"),
        bind(.list, .listSignals, [.char("s")], "help.list.signals", hint: "hint.signals"),
        bind(.list, .listFavorites, [.char("f")], "help.list.favorites"),
        bind(.list, .listContacts, [.char("c")], "help.list.contacts", hint: "hint.contacts"),
        bind(.list, .listMe, [.char("u")], "help.list.me"),
        bind(.list, .listSearch, [.char("/")], "help.list.search", hint: "hint.search"),
        bind(.list, .listRefresh, [.char("r")], "help.list.refresh"),
        bind(.list, .listBack, [.escape], "help.list.back"),

        bind(.messages, .messagesUp, [.char("k"), .up], "help.messages.select", hint: "hint.select"),
        bind(.messages, .messagesDown, [.char("j"), .down], "help.messages.select", hint: "hint.select"),
        bind(.messages, .messagesPageUp, [.pageUp], "help.messages.scroll", hint: "hint.scroll"),
        bind(.messages, .messagesPageDown, [.pageDown], "help.messages.scroll", hint: "hint.scroll"),
        bind(.messages, .messagesBottom, [.char("G"), .end], "help.messages.newest"),
        bind(.messages, .messagesEnter, [.enter], "help.messages.enter", hint: "hint.enter"),
        bind(.messages, .messagesOpen, [.char("o")], "help.messages.open"),
        bind(.messages, .messagesRevoke, [.char("R")], "help.messages.revoke", hint: "hint.revoke"),
        bind(.messages, .messagesDiscard, [.char("x")], "help.messages.discard"),
        bind(.messages, .messagesReply, [.char("r")], "help.messages.reply", hint: "hint.reply"),
        bind(.messages, .messagesEdit, [.char("e")], "help.messages.edit"),
        bind(.messages, .messagesFavorite, [.char("s")], "help.messages.favorite"),
        bind(.messages, .messagesCopy, [.char("c")], "help.messages.copy"),
        bind(.messages, .messagesForward, [.char("f")], "help.messages.forward"),
        bind(.messages, .messagesForwardMerged, [.char("F")], "help.messages.forwardMerged"),
        bind(.messages, .messagesSelect, [.char("v")], "help.messages.multi"),
        bind(.messages, .messagesMark, [.char(" ")], "help.messages.mark"),
        bind(.messages, .messagesReaders, [.char("w")], "help.messages.readers"),
        bind(.messages, .messagesMenu, [.char(".")], "help.messages.menu", hint: "hint.menu"),
        Binding(scope: .messages, action: .messagesReact1, keys: [.char("1")], help: "help.messages.react", hint: "hint.react",
                hintIn: [.messages], hintKeysText: "1-6"),
        bind(.messages, .messagesReact2, [.char("2")], "help.messages.react"),
        bind(.messages, .messagesReact3, [.char("3")], "help.messages.react"),
        bind(.messages, .messagesReact4, [.char("4")], "help.messages.react"),
        bind(.messages, .messagesReact5, [.char("5")], "help.messages.react"),
        bind(.messages, .messagesReact6, [.char("6")], "help.messages.react"),
        bind(.messages, .messagesType, [.char("i")], "help.messages.type", hint: "hint.type"),
        bind(.messages, .messagesSettings, [.char(",")], "help.messages.settings", hint: "hint.settings"),
        bind(.messages, .messagesSearch, [.char("/")], "help.messages.search", hint: "hint.search"),
        bind(.messages, .messagesBack, [.escape], "help.messages.back"),

        bind(.input, .inputSend, [.enter], "help.input.send", hint: "hint.send"),
        bind(.input, .inputNewline, [.altEnter, .ctrl("j")], "help.input.newline", hint: "hint.newline", keysShown: 2),
        bind(.input, .inputLeave, [.escape], "help.input.leave", hint: "hint.leave"),
        document(.input, "help.input.move"),
        document(.input, "help.input.delete"),
        document(.input, "help.input.editor"),
        document(.input, "help.input.image", hint: "hint.commands"),
        document(.input, "help.input.flash"),
        document(.input, "help.input.multi"),
        document(.input, "help.input.voice"),
        document(.input, "help.input.file"),
        bind(.input, .inputEmoji, [.ctrl("g")], "help.input.emoji"),
        document(.input, "help.input.emojiName"),
        document(.input, "help.input.mention"),
        document(.input, "help.input.group"),

        bind(.everywhere, .focusNext, [.tab], "help.global.focus", hint: "hint.focus", in: [.messages]),
        bind(.everywhere, .focusPrevious, [.backTab], "help.global.focus"),
        bind(.everywhere, .secretChat, [.char("S")], "help.secret"),
        bind(.everywhere, .help, [.char("?")], "help.global.help", hint: "hint.help", in: [.list]),
        bind(.everywhere, .quit, [.char("q"), .ctrl("c")], "help.global.quit", hint: "hint.quit", in: [.list]),
    ]

    /// Keys of `everywhere` that still act while typing (the rest are text).
    static let typingKeys: Set<Key> = [.tab, .backTab, .ctrl("c")]

    static func scope(of action: Action) -> Scope? {
        table.first { $0.action == action }?.scope
    }

    /// The key a text names for `action`: the one `keys.json` bound to it,
    /// else its first default key ("u").
    static func keyName(of action: Action, _ keyMap: KeyMap) -> String {
        let key = keyMap.rebound.first { $0.action == action.rawValue }?.key ?? table.first { $0.action == action }?.keys.first
        return key.map(KeyMap.name(of:)) ?? ""
    }

    /// The status line's key hints for a pane, from the table: `j/k 移动
    /// Enter 打开 …`. A key `keys.json` bound to an action is named first.
    /// `onRoom`: the list's selected row is a room, which `d` leaves and `p` cannot pin.
    static func hints(for scope: Scope, _ keyMap: KeyMap, _ L: Localizer, onRoom: Bool = false) -> String {
        var words: [String] = []
        var keysOf: [String: [String]] = [:]
        for b in table where b.hintIn.contains(scope) {
            guard var hint = b.hint else { continue }
            if onRoom && b.action == .listPin { continue }
            if onRoom && b.action == .listDelete { hint = "hint.leaveRoom" }
            if keysOf[hint] == nil { words.append(hint); keysOf[hint] = [] }
            let rebound = keyMap.rebound.filter { $0.action == b.action?.rawValue }.map(\.key)
            if let text = b.hintKeysText, rebound.isEmpty { keysOf[hint]!.append(text); continue }
            keysOf[hint]! += (rebound + b.keys).prefix(b.hintKeys).map(KeyMap.name(of:))
        }
        return words.map { word in
            let keys = keysOf[word, default: []].joined(separator: "/")
            return keys.isEmpty ? L.string(word) : keys + " " + L.string(word)
        }.joined(separator: "  ")
    }
}

/// Seed 004's quick-reply row: at most six emoji, on keys 1–6.
enum QuickReactions {
    static let all = ["👍", "❤️", "😂", "😮", "😢", "🙏"]

    static let actions: [Action] = [.messagesReact1, .messagesReact2, .messagesReact3, .messagesReact4, .messagesReact5, .messagesReact6]

    static func emoji(for action: Action) -> String {
        all[actions.firstIndex(of: action) ?? 0]
    }
}

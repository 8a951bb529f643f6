import TerminalUI

/// What a key does. The raw values are the names `keys.json` uses.
enum Action: String, CaseIterable, Sendable {
    case listDown = "list.down", listUp = "list.up", listTop = "list.top", listBottom = "list.bottom"
    case listOpen = "list.open", listPin = "list.pin", listDelete = "list.delete", listNew = "list.new"
    case listMute = "list.mute"
    case listSignals = "list.signals", listSearch = "list.search", listRefresh = "list.refresh", listBack = "list.back"
    case messagesUp = "messages.up", messagesDown = "messages.down", messagesPageUp = "messages.pageUp"
    case messagesPageDown = "messages.pageDown", messagesBottom = "messages.bottom", messagesEnter = "messages.enter"
    case messagesOpen = "messages.open", messagesRevoke = "messages.revoke", messagesType = "messages.type"
    case messagesSettings = "messages.settings", messagesSearch = "messages.search", messagesBack = "messages.back"
    case inputSend = "input.send", inputNewline = "input.newline", inputLeave = "input.leave"
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

    static func bind(_ scope: Scope, _ action: Action, _ keys: [Key], _ help: String) -> Binding {
        Binding(scope: scope, action: action, keys: keys, help: help)
    }
    static func document(_ scope: Scope, _ help: String) -> Binding {
        Binding(scope: scope, action: nil, keys: [], help: help)
    }

    /// Every key the client knows, in the order the help lists them. Actions
    /// that share a description share a help row.
    static let table: [Binding] = [
        bind(.list, .listDown, [.char("j"), .down], "help.list.move"),
        bind(.list, .listUp, [.char("k"), .up], "help.list.move"),
        bind(.list, .listTop, [.char("g"), .home], "help.list.ends"),
        bind(.list, .listBottom, [.char("G"), .end], "help.list.ends"),
        bind(.list, .listOpen, [.enter], "help.list.open"),
        bind(.list, .listPin, [.char("p")], "help.list.pin"),
        bind(.list, .listMute, [.char("m")], "help.list.mute"),
        bind(.list, .listDelete, [.char("d")], "help.list.delete"),
        bind(.list, .listNew, [.char("n")], "help.list.new"),
        bind(.list, .listSignals, [.char("s")], "help.list.signals"),
        bind(.list, .listSearch, [.char("/")], "help.list.search"),
        bind(.list, .listRefresh, [.char("r")], "help.list.refresh"),
        bind(.list, .listBack, [.escape], "help.list.back"),

        bind(.messages, .messagesUp, [.char("k"), .up], "help.messages.select"),
        bind(.messages, .messagesDown, [.char("j"), .down], "help.messages.select"),
        bind(.messages, .messagesPageUp, [.pageUp], "help.messages.scroll"),
        bind(.messages, .messagesPageDown, [.pageDown], "help.messages.scroll"),
        bind(.messages, .messagesBottom, [.char("G"), .end], "help.messages.newest"),
        bind(.messages, .messagesEnter, [.enter], "help.messages.enter"),
        bind(.messages, .messagesOpen, [.char("o")], "help.messages.open"),
        bind(.messages, .messagesRevoke, [.char("R")], "help.messages.revoke"),
        bind(.messages, .messagesType, [.char("i")], "help.messages.type"),
        bind(.messages, .messagesSettings, [.char(",")], "help.messages.settings"),
        bind(.messages, .messagesSearch, [.char("/")], "help.messages.search"),
        bind(.messages, .messagesBack, [.escape], "help.messages.back"),

        bind(.input, .inputSend, [.enter], "help.input.send"),
        bind(.input, .inputNewline, [.altEnter, .ctrl("j")], "help.input.newline"),
        bind(.input, .inputLeave, [.escape], "help.input.leave"),
        document(.input, "help.input.move"),
        document(.input, "help.input.delete"),
        document(.input, "help.input.image"),
        document(.input, "help.input.flash"),
        document(.input, "help.input.multi"),
        document(.input, "help.input.voice"),
        document(.input, "help.input.file"),
        document(.input, "help.input.mention"),
        document(.input, "help.input.group"),

        bind(.everywhere, .focusNext, [.tab], "help.global.focus"),
        bind(.everywhere, .focusPrevious, [.backTab], "help.global.focus"),
        bind(.everywhere, .help, [.char("?")], "help.global.help"),
        bind(.everywhere, .quit, [.char("q"), .ctrl("c")], "help.global.quit"),
    ]

    /// Keys of `everywhere` that still act while typing (the rest are text).
    static let typingKeys: Set<Key> = [.tab, .backTab, .ctrl("c")]

    static func scope(of action: Action) -> Scope? {
        table.first { $0.action == action }?.scope
    }
}

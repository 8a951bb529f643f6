import ChatCore

/// What a feature's update asks of the app besides its own new value: the
/// effects to run, whether its page stays on screen, the status line's
/// words and the pictures it wants decoded (Bubble Tea's `Cmd`, with the
/// few ways a page hands the screen back). `Update.run` applies it.
struct Step: Equatable {
    var effects: [Effect] = []
    var next = Next.stay
    var status: String?
    /// Profile or group pictures to decode for the page (object keys).
    var pictures: [String] = []
    /// The pane that takes the keyboard after it.
    var focus: PaneFocus?
    /// Text for the input bar, at its cursor (the emoji grid).
    var insert: String?

    enum Next: Equatable {
        /// The page stays, as its update left it.
        case stay
        case close
        /// The page closes and this chat opens.
        case open(Conversation)
        /// The page gives way to another (the `n` dialog's rows open forms).
        case show(AppState.Mode)
        /// The page gives way to a question on the status line.
        case confirm(AppState.Confirm)
        /// The page closes and a command starts in the input bar (unless a
        /// draft is there: it is not thrown away).
        case type(String)
    }

    static func effects(_ effects: [Effect]) -> Step { Step(effects: effects) }
    static func close(_ effects: [Effect] = []) -> Step { Step(effects: effects, next: .close) }
    static var stay: Step { Step() }
}

extension Update {
    /// Applies what a page's update asked; `page` is the mode showing it as
    /// the update left it.
    static func run(_ step: Step, page: AppState.Mode, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        if let words = step.status { s.status = words }
        if let pane = step.focus { s.focus = pane }
        if let text = step.insert { s.input.insert(text) }
        var effects = step.effects
        switch step.next {
        case .stay: s.mode = page
        case .close: s.mode = .normal
        case .open(let c):
            s.mode = .normal
            effects += open(c, &s)
        case .confirm(let question): s.mode = .confirm(question)
        case .show(let other): s.mode = other
        case .type(let command):
            s.mode = .normal
            if s.input.text.isEmpty {
                s.input = InputLine(text: command)
                s.focus = .input
            } else {
                s.status = L.string("ui.group.inputBusy")
            }
        }
        for key in step.pictures where !key.isEmpty { effects += avatarWanted(key, &s) }
        return effects
    }
}

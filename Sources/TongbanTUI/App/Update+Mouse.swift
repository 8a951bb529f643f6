import ChatCore
import Foundation
import TerminalUI

/// The mouse (iamb, gomuks and weechat do the same): the wheel scrolls the
/// pane under the pointer, a click selects a conversation or a message and
/// a double click opens a conversation, a click on the input bar gives it
/// the focus. Each turns into what the keyboard would do, so the rules
/// stay the keyboard's.
extension Update {
    /// Two clicks on one cell this close together are a double click.
    static let doubleClick: TimeInterval = 0.4

    static func mouse(_ e: MouseEvent, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        let layout = ScreenLayout(s)
        guard layout.fits else { return [] }
        let notches: Key? = e.kind == .wheelUp ? .up : e.kind == .wheelDown ? .down : nil
        if s.mode != .normal {
            // Over a list-like overlay the wheel moves its selection; clicks
            // never act on what the overlay hides.
            guard let notches, s.mode.scrollsWithWheel else { return [] }
            return handleMode(notches, &s, L)
        }
        if let list = layout.list, list.contains(x: e.x, y: e.y) {
            if let notches { return moved(.list, notches, &s, L) }
            guard e.kind == .press, let row = ConversationListWidget.row(at: e.y, s, L, list) else { return [] }
            let again = isDoubleClick(e, &s)
            s.focus = .list
            s.listIndex = row
            return again ? listAction(.listOpen, &s, L) : []
        }
        if layout.chat != nil, s.chat != nil {
            if layout.messages.contains(x: e.x, y: e.y) {
                if let notches { return moved(.messages, notches, &s, L) }
                guard e.kind == .press else { return [] }
                s.lastClick = nil
                guard let bubble = MessageListWidget.bubble(at: e.y, s, L, layout.messages) else { return [] }
                s.focus = .messages
                s.selected = bubble
                return []
            }
            if layout.input.contains(x: e.x, y: e.y), e.kind == .press {
                s.focus = .input
                return []
            }
        }
        return []
    }

    /// One turn of the wheel: the pane takes focus and moves by one, as the arrow key would.
    private static func moved(_ pane: PaneFocus, _ key: Key, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        s.lastClick = nil
        s.focus = pane
        let action = s.keyMap.action(for: key, in: pane == .list ? .list : .messages)
        guard let action else { return [] }
        return pane == .list ? listAction(action, &s, L) : messagesAction(action, &s, L)
    }

    /// Whether this press is the second of a double click (and remembers it).
    private static func isDoubleClick(_ e: MouseEvent, _ s: inout AppState) -> Bool {
        if let last = s.lastClick, last.y == e.y, abs(last.x - e.x) <= 1,
           case let gap = s.now.timeIntervalSince(last.at), gap >= 0, gap <= doubleClick {
            s.lastClick = nil
            return true
        }
        s.lastClick = AppState.Click(x: e.x, y: e.y, at: s.now)
        return false
    }
}

extension AppState.Mode {
    /// Overlays that are a list to move through.
    var scrollsWithWheel: Bool {
        switch self {
        case .help, .actions, .forward, .favorites, .messageSearch, .newChat, .contacts, .record, .emoji, .open, .listSearch: return true
        default: return false
        }
    }
}

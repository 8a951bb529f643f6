import ChatCore
import TerminalUI

/// What `o` can open in a message: its picture or file (the viewer, as
/// before) and the links in its text (`xdg-open`).
enum Openable: Equatable {
    case attachment(ChatMessage)
    case link(String)

    /// Everything `m` holds, attachment first, links in reading order.
    static func of(_ m: ChatMessage) -> [Openable] {
        guard !m.isRecalled else { return [] }
        var found: [Openable] = []
        if MessageKinds.kind(for: m.type).canOpenExternally { found.append(.attachment(m)) }
        for link in Links.find(in: TerminalSanitizer.sanitize(m.content.text ?? "", keepNewlines: true))
        where !found.contains(.link(link.url)) {
            found.append(.link(link.url))
        }
        return found
    }

    var effect: Effect {
        switch self {
        case .attachment(let m): return .openExternally(m)
        case .link(let url): return .openLink(url)
        }
    }

    /// The picker's line: what the attachment is, or the address.
    func line(_ L: Localizer) -> String {
        switch self {
        case .attachment(let m): return TerminalSanitizer.oneLine(MessageKinds.summary(of: m, localizer: L))
        case .link(let url): return url
        }
    }

    /// `o` on `m`: one thing opens at once, several ask which.
    static func open(_ m: ChatMessage, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        let all = of(m)
        if all.count == 1, let only = all.first { return [only.effect] }
        if all.isEmpty { s.status = L.string("ui.open.nothing"); return [] }
        s.mode = .open(Pick(all))
        return []
    }
}

extension Pick where Item == Openable {
    /// Enter opens the one highlighted, Esc closes.
    mutating func update(_ key: Key) -> Step {
        if move(key) { return .stay }
        switch key {
        case .escape, .char("q"): return .close()
        case .enter, .char("o"): return current.map { .close([$0.effect]) } ?? .close()
        default: return .stay
        }
    }
}

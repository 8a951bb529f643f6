import ChatCore
import TerminalUI

/// `s`: signals (信号) in three tabs (PROTOCOL.md v4 "Signal feed"): 广场
/// the feed of others' signals, 我的 mine with their reply counts, 收到 the
/// replies to mine. A page value with its own update.
struct SignalsView: Equatable {
    enum Tab: Int, CaseIterable, Equatable { case feed, mine, inbox }

    var tab = Tab.feed
    /// Each tab's list as last loaded; nil while loading.
    var feed: [SignalFeedItem]?
    var mine: [MySignal]?
    var inbox: [SignalInboxItem]?
    var index = 0
    /// A line being typed at the foot of the page.
    var composing: Composing?
    /// `x` on one of mine asked; `y` deletes it.
    var deleting: Int?

    enum Composing: Equatable {
        case reply(SignalFeedItem, String)
        case report(SignalFeedItem, String)
        case post(String)

        var text: String {
            switch self { case .reply(_, let t), .report(_, let t), .post(let t): t }
        }
        func with(_ text: String) -> Composing {
            switch self {
            case .reply(let s, _): .reply(s, text)
            case .report(let s, _): .report(s, text)
            case .post: .post(text)
            }
        }
    }

    /// The longest signal or reply (PROTOCOL.md v4).
    static let maxCharacters = 500

    var count: Int {
        switch tab {
        case .feed: feed?.count ?? 0
        case .mine: mine?.count ?? 0
        case .inbox: inbox?.count ?? 0
        }
    }

    /// The page opened on the feed, loading it.
    static func open() -> (SignalsView, [Effect]) { (SignalsView(), [.signals(.load(.feed))]) }

    /// ←/→ (or 1/2/3) switch tabs, ↑/↓ (j/k) move, Esc closes. The feed:
    /// Enter replies, `h` hides, `!` reports. Mine: `n` posts, `x` deletes
    /// (then `y`). The inbox: Enter opens the chat of the reply.
    mutating func update(_ key: Key, _ L: Localizer) -> Step {
        if let composing { return compose(key, composing) }
        if let id = deleting {
            deleting = nil
            guard key == .char("y") else { return .stay }
            mine?.removeAll { $0.signalId == id }
            index = min(index, max(0, count - 1))
            return .effects([.signals(.delete(id))])
        }
        switch key {
        case .escape, .char("q"): return .close()
        case .left: return show(Tab(rawValue: (tab.rawValue + Tab.allCases.count - 1) % Tab.allCases.count) ?? .feed)
        case .right, .tab: return show(Tab(rawValue: (tab.rawValue + 1) % Tab.allCases.count) ?? .feed)
        case .char("1"): return show(.feed)
        case .char("2"): return show(.mine)
        case .char("3"): return show(.inbox)
        case .down, .char("j"): index = min(index + 1, max(0, count - 1)); return .stay
        case .up, .char("k"): index = max(0, index - 1); return .stay
        case .char("r"): return .effects([.signals(.load(tab))])
        default: break
        }
        switch (tab, key) {
        case (.feed, .enter):
            guard let s = feedItem else { return .stay }
            if s.replied { return Step(status: L.string("ui.signals.repliedAlready")) }
            composing = .reply(s, "")
        case (.feed, .char("h")):
            guard let s = feedItem else { return .stay }
            feed?.removeAll { $0.signalId == s.signalId }
            index = min(index, max(0, count - 1))
            return .effects([.signals(.hide(s.signalId))])
        case (.feed, .char("!")):
            guard let s = feedItem else { return .stay }
            composing = .report(s, "")
        case (.mine, .char("n")):
            composing = .post("")
        case (.mine, .char("x")):
            guard let m = mine, index < m.count else { return .stay }
            deleting = m[index].signalId
        case (.inbox, .enter):
            guard let items = inbox, index < items.count else { return .stay }
            return .close([.openSignal(items[index])])
        default: break
        }
        return .stay
    }

    var feedItem: SignalFeedItem? {
        guard let f = feed, index < f.count else { return nil }
        return f[index]
    }

    private mutating func show(_ next: Tab) -> Step {
        guard next != tab else { return .stay }
        tab = next
        index = 0
        return .effects([.signals(.load(next))])
    }

    /// The line at the foot: Enter sends it, Esc drops it.
    private mutating func compose(_ key: Key, _ c: Composing) -> Step {
        switch key {
        case .escape:
            composing = nil
        case .backspace:
            composing = c.with(String(c.text.dropLast()))
        case .char(let ch):
            if c.text.count < Self.maxCharacters { composing = c.with(c.text + String(ch)) }
        case .paste(let text):
            composing = c.with(String((c.text + TerminalSanitizer.oneLine(text)).prefix(Self.maxCharacters)))
        case .enter:
            let text = c.text.trimmingCharacters(in: .whitespaces)
            if case .report(let s, _) = c {
                composing = nil
                feed?.removeAll { $0.signalId == s.signalId }
                index = min(index, max(0, count - 1))
                return .effects([.signals(.report(s.signalId, reason: text))])
            }
            guard !text.isEmpty else { return .stay }
            composing = nil
            switch c {
            case .reply(let s, _):
                if let i = feed?.firstIndex(where: { $0.signalId == s.signalId }) { feed?[i].replied = true }
                return .effects([.signals(.reply(s.signalId, text))])
            case .post: return .effects([.signals(.post(text))])
            case .report: break
            }
        default: break
        }
        return .stay
    }

    /// A tab's list arrived.
    mutating func loaded(_ event: SignalEvent) {
        switch event {
        case .feed(let items): feed = items
        case .mine(let items): mine = items
        case .inbox(let items): inbox = items
        }
        index = min(index, max(0, count - 1))
    }
}

/// What the signals' effects found.
enum SignalEvent: Equatable {
    case feed([SignalFeedItem])
    case mine([MySignal])
    case inbox([SignalInboxItem])
}

/// The signals' I/O (EffectRunner+Live.swift).
enum SignalEffect: Equatable {
    case load(SignalsView.Tab)
    case post(String)
    case reply(Int, String)
    case hide(Int)
    case report(Int, reason: String)
    case delete(Int)
}

import ChatCore
import TerminalUI

/// Emoji in the input bar (seed 003's 表情): after `:` and two letters of a
/// name the status line lists matches and Tab takes the first; Enter still
/// sends the text as typed, so `12:30` and `:)` stay as they are. `Ctrl-G`
/// opens a grid of them.
struct EmojiGrid: Equatable {
    var index = 0
    static let columns = 8

    var current: EmojiCatalog.Entry? { index < EmojiCatalog.all.count ? EmojiCatalog.all[index] : nil }

    /// Arrows (or h/j/k/l) move, Enter puts the emoji in the input bar, Esc closes.
    mutating func update(_ key: Key) -> Step {
        let count = EmojiCatalog.all.count
        switch key {
        case .left, .char("h"): index = max(0, index - 1)
        case .right, .char("l"): index = min(count - 1, index + 1)
        case .up, .char("k"): index = max(0, index - Self.columns)
        case .down, .char("j"): index = min(count - 1, index + Self.columns)
        case .enter:
            guard let e = current else { return .close() }
            return Step(next: .close, focus: .input, insert: e.emoji)
        case .escape, .char("q"): return Step(next: .close, focus: .input)
        default: break
        }
        return .stay
    }
}

extension Update {
    /// The name being typed after `:` at the start of a word (two or more of
    /// `a-z 0-9 _ + -`), or nil: `12:30` (no word start), `:)` (not a name).
    static func emojiQuery(_ s: AppState) -> String? {
        guard s.focus == .input, s.chat != nil else { return nil }
        let before = s.input.beforeCursor
        guard let colon = before.lastIndex(of: ":") else { return nil }
        if colon > before.startIndex, let prev = before[..<colon].last, !prev.isWhitespace { return nil }
        let word = before[before.index(after: colon)...]
        guard (2...32).contains(word.count),
              word.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || "_+-".contains($0)) }) else { return nil }
        return String(word)
    }

    static func emojiCandidates(_ s: AppState) -> [EmojiCatalog.Entry] {
        emojiQuery(s).map { EmojiCatalog.matching($0) } ?? []
    }

    /// Tab while emoji are offered: the first replaces `:name`. nil: the key is not for it.
    static func emojiKey(_ key: Key, _ s: inout AppState) -> [Effect]? {
        guard key == .tab, let q = emojiQuery(s), let first = EmojiCatalog.matching(q).first else { return nil }
        for _ in 0...q.count { s.input.apply(.backspace) }
        s.input.insert(first.emoji)
        return []
    }
}

import ChatCore
import Foundation
import TerminalUI

/// What makes a conversation feel alive (PROTOCOL.md v4): who is typing
/// where, when I last said I was typing, and the read counts of my messages
/// in the open group. A value, changed only by its own methods.
struct LiveState: Equatable {
    /// By conversation: who is typing (imUids) and until when.
    private(set) var typing: [String: [String: Date]] = [:]
    /// When I last told the server that I am typing, by conversation.
    private(set) var toldTyping: [String: Date] = [:]
    /// The open group's read counts of my messages, by seq.
    private(set) var readCounts: [Int: ReadCountsResponse.Count] = [:]
    /// Which conversation `readCounts` and `asked` are of.
    private(set) var countsOf: String?
    /// The seqs last asked about (asked again only when they change or the server says reads moved).
    private(set) var asked: [Int] = []

    /// At most one typing notice per conversation this often (PROTOCOL.md v4).
    static let typingEvery: TimeInterval = 3
    /// Counts are asked for the newest of my messages, at most this many (the server's limit).
    static let countsAtOnce = 100

    // MARK: Typing

    /// A `typing` frame arrived: `userId` types for `ttlMs` from now (my clock).
    mutating func heard(typing userId: String, in conversationId: String, ttlMs: Int, now: Date) {
        typing[conversationId, default: [:]][userId] = now.addingTimeInterval(Double(ttlMs) / 1000)
    }

    /// A message from `userId` ends their typing there.
    mutating func arrived(from userId: String, in conversationId: String) {
        typing[conversationId]?[userId] = nil
        if typing[conversationId]?.isEmpty == true { typing[conversationId] = nil }
    }

    /// Forgets typing that ran out; whether anything did.
    mutating func expire(now: Date) -> Bool {
        let before = typing
        for (conv, who) in typing {
            let left = who.filter { $0.value > now }
            typing[conv] = left.isEmpty ? nil : left
        }
        return typing != before
    }

    /// Who is typing in `conversationId` now, in a stable order.
    func typers(in conversationId: String, now: Date) -> [String] {
        (typing[conversationId] ?? [:]).filter { $0.value > now }.keys.sorted()
    }

    var anyoneTyping: Bool { !typing.isEmpty }

    /// The input bar of `conversationId` now holds `text`: whether to tell
    /// the server I am typing (there is text, and 3 s passed since the last time).
    mutating func typed(_ text: String, in conversationId: String, now: Date) -> Bool {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return false }
        if let last = toldTyping[conversationId], now.timeIntervalSince(last) < Self.typingEvery, now >= last { return false }
        toldTyping[conversationId] = now
        return true
    }

    /// A message went out: the next keystroke tells the server again.
    mutating func sent(in conversationId: String) { toldTyping[conversationId] = nil }

    // MARK: Read counts

    /// The seqs of `mine` (my sent messages' seqs in the open group) to ask
    /// counts for, or nil when they were asked already and `force` is not set.
    mutating func countsWanted(in conversationId: String, mine: [Int], force: Bool) -> [Int]? {
        let seqs = Array(mine.filter { $0 > 0 }.sorted().suffix(Self.countsAtOnce))
        if countsOf != conversationId {
            countsOf = conversationId
            readCounts = [:]
            asked = []
        }
        guard !seqs.isEmpty, force || seqs != asked else { return nil }
        asked = seqs
        return seqs
    }

    /// The server's counts for `conversationId`.
    mutating func counted(_ counts: [Int: ReadCountsResponse.Count], in conversationId: String) {
        guard countsOf == conversationId else { return }
        readCounts.merge(counts) { $1 }
    }

    /// The open chat closed or changed: its counts go.
    mutating func closed() {
        countsOf = nil
        readCounts = [:]
        asked = []
    }
}

/// The words for who is typing (PROTOCOL.md v4: `正在输入…`, `Alice 正在输入…`, `2 人正在输入…`).
enum TypingWords {
    static func text(_ typers: [String], isGroup: Bool, names: [String: String], _ L: Localizer) -> String? {
        guard let first = typers.first else { return nil }
        if !isGroup { return L.string("typing.one") }
        if typers.count > 1 { return L.string("typing.many", ["n": String(typers.count)]) }
        guard let name = names[first] else { return L.string("typing.someone") }
        return L.string("typing.named", ["name": TerminalSanitizer.oneLine(name)])
    }
}

/// The mark under a message of mine that says who read it (seed 003's read marks).
enum ReadMark {
    /// One-to-one: `已读` up to the peer's read seq, `未读` after; a group:
    /// `全部已读` or `3 人未读` from the counts. Nil when nothing is known
    /// (reads not shared, not sent yet, a room, counts not in).
    static func text(_ m: ChatMessage, peerReadSeq: Int?, isGroup: Bool, counts: [Int: ReadCountsResponse.Count],
                     _ L: Localizer) -> String? {
        guard m.isMe, !m.isRecalled, m.status == .success, m.seq > 0 else { return nil }
        let seq = m.seq
        if isGroup {
            guard let c = counts[seq] else { return nil }
            return c.unread == 0 ? L.string("receipt.allRead") : L.string("receipt.unreadCount", ["n": String(c.unread)])
        }
        guard let read = peerReadSeq else { return nil }
        return L.string(seq <= read ? "receipt.read" : "receipt.unread")
    }
}

/// 已读详情: who read a group message of mine and who has not (PROTOCOL.md v4).
struct ReadersPage: Equatable {
    var conversationId: String
    var seq: Int
    /// The message, on one line.
    var text: String
    var read: [UserBasicInfo]?
    var unread: [UserBasicInfo]?
    /// The first line shown (j/k scroll).
    var top = 0

    /// j/k and the arrows scroll, any other key closes.
    mutating func update(_ key: Key) -> Step {
        switch key {
        case .down, .char("j"): top += 1
        case .up, .char("k"): top = max(0, top - 1)
        default: return .close()
        }
        return .stay
    }
}

import ChatCore
import Synchronization
import TerminalUI

/// Bubbles laid out in earlier frames, kept for the next ones.
///
/// Every frame lays out the messages on screen and a screen above them
/// (`MessageListWidget.layout`), and so do the updates that ask where the
/// view is. While messages arrive, nearly all of those were laid out the
/// frame before: wrapping, finding links and measuring widths again was a
/// sixth of the client's CPU in a flood. A bubble is a pure function of its
/// message and its context, so a kept bubble is used only for an equal
/// message in an equal context (`Key`: everything of the context a bubble
/// reads, and the theme's palette); a layout in another context starts over.
/// Bubbles that read what `Key` leaves out (the clock, thumbnails, cached
/// media, playback: pictures, cards, voice) are laid out every time; a
/// drawer that starts reading one of those fields belongs in `uncached`.
enum BubbleMemo {
    struct Key: Equatable, Sendable {
        var width: Int
        var language: Language
        var palette: ThemePalette
        var isGroup: Bool
        var senderNames: [String: String]
        var me: String
        var peerName: String
        var marked: Set<String>
        var blockedSenders: Set<String>
        var unfolded: Set<String>
        var peerReadSeq: Int?
        var readCounts: [Int: ReadCountsResponse.Count]

        init(_ c: BubbleContext) {
            width = c.width
            language = c.L.language
            palette = Theme.palette
            isGroup = c.isGroup
            senderNames = c.senderNames
            me = c.me
            peerName = c.peerName
            marked = c.marked
            blockedSenders = c.blockedSenders
            unfolded = c.unfolded
            peerReadSeq = c.peerReadSeq
            readCounts = c.readCounts
        }
    }

    /// The types whose bubbles read `now`, `thumbnails`, `cachedKeys` or `playingId`.
    static let uncached: Set<ChatMessageType> = [.image, .multiImage, .card, .voice]

    typealias Entries = [String: (message: ChatMessage, lines: [BubbleLine])]

    /// The bubbles of the last layout in each of the last two contexts, by
    /// message id, newest first. Two, because a key in the message pane
    /// lays the chat out in the update (no palette bound: the default one)
    /// and again in the frame (the user's theme); with one slot a light
    /// theme would start over twice per key. Only the last layout's
    /// bubbles, so the memo holds what a screen shows, however long the chat.
    struct State: Sendable {
        var slots: [(key: Key, entries: Entries)] = []
    }

    private static let state = Mutex(State())

    /// Runs `body` with a lookup that answers `Bubbles.lines(m, c)`, from the
    /// memo when it can. One lock for the whole layout: no layout waits on
    /// another but in tests, which render in parallel.
    static func with<R>(_ c: BubbleContext, _ body: (_ lines: (ChatMessage) -> [BubbleLine]) throws -> R) rethrows -> R {
        let key = Key(c)
        return try state.withLock { s in
            let slot = s.slots.firstIndex { $0.key == key }
            let kept = slot.map { s.slots.remove(at: $0).entries } ?? [:]
            var used: Entries = [:]
            used.reserveCapacity(kept.count)
            defer { s.slots = [(key, used)] + s.slots.prefix(1) }
            return try body { m in
                if uncached.contains(m.type) && !m.isRecalled { return Bubbles.lines(m, c) }
                if let k = kept[m.id], k.message == m {
                    used[m.id] = k
                    return k.lines
                }
                let lines = Bubbles.lines(m, c)
                used[m.id] = (m, lines)
                return lines
            }
        }
    }

    /// Forgets every kept bubble (tests that compare against a fresh layout).
    static func reset() {
        state.withLock { $0 = State() }
    }
}

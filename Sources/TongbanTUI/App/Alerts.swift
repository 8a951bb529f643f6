import ChatCore
import Foundation
import ChatStore

/// When the client interrupts the user: desktop notifications and the
/// bell. Policy only: it names effects, the runner performs them.
enum Alerts {
    /// New messages from others in conversations not on screen notify, one
    /// notification per conversation (at most three a batch): not for a
    /// muted conversation unless the message mentions me. The body is the
    /// message's summary, so a flash image reads `[闪照]`, never its content.
    /// A mention in a muted conversation also rings the bell (the title's
    /// total, whose rise rings it otherwise, leaves muted ones out).
    static func notifications(_ changes: AppliedChanges, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var effects: [Effect] = []
        var ring = false
        for (id, wire) in changes.newestIncoming.sorted(by: { $0.value.sendTime > $1.value.sendTime }) {
            guard id != s.chat?.conversation.id, effects.count < 3 else { continue }
            let mentioned = changes.mentioned.contains(id)
            let conversation = s.list.conversations.first { $0.id == id }
            if conversation?.isMuted == true && !mentioned { continue }
            if conversation?.isMuted == true { ring = true }
            let message = IMMessageMapper.map(wire, currentUID: s.myImUid)
            // A secret chat's notification never says what came (PROTOCOL.md v4).
            var body = ConversationIDHelper.isSecret(id) ? L.string("summary.secret") : MessageKinds.summary(of: message, localizer: L)
            if mentioned { body = L.string("ui.mentioned") + " " + body }
            let title = TerminalSanitizer.oneLine(conversation?.nickname ?? L.string("ui.title"))
            effects.append(.notify(title: title, body: TerminalSanitizer.oneLine(body)))
        }
        return ring ? effects + Self.ring(&s) : effects
    }

    /// The bell, unless it rang less than a second ago.
    static func ring(_ s: inout AppState) -> [Effect] {
        if let last = s.lastRingAt, s.now.timeIntervalSince(last) < 1 { return [] }
        s.lastRingAt = s.now
        return [.ring]
    }
}

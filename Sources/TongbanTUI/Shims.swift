import ChatCore
import Foundation

// TEMPORARY until the ChatCore helpers land.
enum TimeLabel {
    static func text(_ ms: Int, _ L: Localizer, now: Date = Date(), utcOffsetSeconds: Int? = nil) -> String {
        guard ms > 0, let t = LocalTime.of(milliseconds: ms, utcOffsetSeconds: utcOffsetSeconds) else { return "" }
        let nowMs = Int((now.timeIntervalSince1970 * 1000).rounded(.down))
        if let today = LocalTime.of(milliseconds: nowMs, utcOffsetSeconds: utcOffsetSeconds) {
            if t.dayNumber == today.dayNumber { return t.clock }
            if t.dayNumber == today.dayNumber - 1 { return L.string("time.yesterday") }
        }
        return "\(t.month)/\(t.day)"
    }
}
enum UnreadBadge { static func text(_ n: Int) -> String { n > 99 ? "99+" : String(n) } }
extension TerminalSanitizer {
    static func oneLine(_ s: String) -> String { sanitize(s.replacingOccurrences(of: "\n", with: " ")) }
}
enum MediaType {
    static func fileExtension(for contentType: String) -> String {
        ["image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"][contentType] ?? "bin"
    }
}
extension ChatApp {
    nonisolated public static func timeLabel(_ ms: Int, _ L: Localizer, now: Date = Date(), utcOffsetSeconds: Int? = nil) -> String {
        TimeLabel.text(ms, L, now: now, utcOffsetSeconds: utcOffsetSeconds)
    }
}

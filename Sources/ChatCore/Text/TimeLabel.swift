import Foundation

/// A message time as the list shows it (seed §五): `HH:mm` today, `昨天`
/// yesterday, else `M/d`, in the user's time zone (`utcOffsetSeconds` fixes
/// one, for tests). The C library's local time, not Calendar.current: it
/// runs for every row of the list on every frame, and Calendar.current
/// loads ICU's locale data (see LocalTime).
public enum TimeLabel {
    public static func text(_ ms: Int, _ L: Localizer, now: Date = Date(), utcOffsetSeconds: Int? = nil) -> String {
        guard ms > 0, let t = LocalTime.of(milliseconds: ms, utcOffsetSeconds: utcOffsetSeconds) else { return "" }
        let nowMs = Int((now.timeIntervalSince1970 * 1000).rounded(.down))
        if let today = LocalTime.of(milliseconds: nowMs, utcOffsetSeconds: utcOffsetSeconds) {
            if t.dayNumber == today.dayNumber { return t.clock }
            if t.dayNumber == today.dayNumber - 1 { return L.string("time.yesterday") }
        }
        return "\(t.month)/\(t.day)"
    }
}

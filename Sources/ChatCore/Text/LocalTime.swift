#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall-clock fields of an instant in the user's time zone, for the
/// list's time column and the chat's time markers.
///
/// It comes from the C library (`localtime_r`: `TZ`, else `/etc/localtime`),
/// the same zone Foundation would pick, rather than from `Calendar.current`:
/// the first `Calendar.current` loads ICU's locale data, over a MiB resident
/// for the rest of the session, to print `15:30` and `3/9`.
public struct LocalTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
    }

    /// The fields of `milliseconds` since 1970 in the local zone, or at the
    /// fixed `utcOffsetSeconds` east of UTC when given (tests, a chosen zone).
    /// nil when the C library cannot represent the instant.
    public static func of(milliseconds ms: Int, utcOffsetSeconds: Int? = nil) -> LocalTime? {
        // Floor division: -1 ms is 23:59:59 of 31 Dec 1969, not 00:00:00.
        let seconds = ms >= 0 ? ms / 1000 : -((-(ms + 1)) / 1000) - 1
        var tmValue = tm()
        if let offset = utcOffsetSeconds {
            let (shifted, overflow) = seconds.addingReportingOverflow(offset)
            guard !overflow else { return nil }
            var t = time_t(shifted)
            guard gmtime_r(&t, &tmValue) != nil else { return nil }
        } else {
            var t = time_t(seconds)
            guard localtime_r(&t, &tmValue) != nil else { return nil }
        }
        return LocalTime(year: Int(tmValue.tm_year) + 1900, month: Int(tmValue.tm_mon) + 1, day: Int(tmValue.tm_mday),
                         hour: Int(tmValue.tm_hour), minute: Int(tmValue.tm_min))
    }

    /// Days since 1970-01-01 of this calendar date (proleptic Gregorian), so
    /// "today" and "yesterday" are one subtraction, right across a DST change.
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `HH:mm`, zero-padded.
    public var clock: String { Self.two(hour) + ":" + Self.two(minute) }

    /// `v` in two digits (`07`).
    public static func two(_ v: Int) -> String { v < 10 && v >= 0 ? "0\(v)" : "\(v)" }
}

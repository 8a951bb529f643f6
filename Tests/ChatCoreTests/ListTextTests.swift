import ChatCore
import Foundation
import Testing

/// The texts a conversation row and a status line are made of, shared by
/// the full-screen client and the command line.
@Suite struct TimeLabelTests {
    /// The list's time column (seed §五): zero-padded HH:mm today,
    /// 昨天/Yesterday, else M/d — in the user's time zone.
    @Test func todayYesterdayAndOlder() {
        let cal = Calendar.current
        let now = cal.date(from: DateComponents(year: 2026, month: 3, day: 9, hour: 15, minute: 30))!
        func ms(_ d: Date) -> Int { Int(d.timeIntervalSince1970 * 1000) }
        let morning = cal.date(from: DateComponents(year: 2026, month: 3, day: 9, hour: 7, minute: 5))!
        let yesterday = cal.date(from: DateComponents(year: 2026, month: 3, day: 8, hour: 23, minute: 59))!
        let older = cal.date(from: DateComponents(year: 2026, month: 2, day: 7, hour: 12, minute: 0))!
        let zh = Localizer(language: .zhHans), en = Localizer(language: .en)
        #expect(TimeLabel.text(ms(morning), zh, now: now) == "07:05")
        #expect(TimeLabel.text(ms(yesterday), zh, now: now) == "昨天")
        #expect(TimeLabel.text(ms(yesterday), en, now: now) == en.string("time.yesterday"))
        #expect(TimeLabel.text(ms(older), zh, now: now) == "2/7")
        #expect(TimeLabel.text(0, zh, now: now) == "")
    }

    /// The day boundary is the user's, not UTC's: at 01:00 in Shanghai a
    /// message from 23:30 the evening before (both 17:xx UTC, the same UTC
    /// day) is yesterday, and one from 00:30 is today.
    @Test func dayBoundaryIsTheUsersZone() {
        let zh = Localizer(language: .zhHans)
        let shanghai = 8 * 3600
        // 2026-03-09 01:00 +08 = 2026-03-08 17:00 UTC.
        let now = Date(timeIntervalSince1970: 1_772_989_200)
        let nowMs = 1_772_989_200_000
        #expect(TimeLabel.text(nowMs - 90 * 60_000, zh, now: now, utcOffsetSeconds: shanghai) == "昨天")
        #expect(TimeLabel.text(nowMs - 30 * 60_000, zh, now: now, utcOffsetSeconds: shanghai) == "00:30")
        #expect(TimeLabel.text(nowMs - 90 * 60_000, zh, now: now, utcOffsetSeconds: 0) == "15:30", "in UTC both are the 8th")
        #expect(TimeLabel.text(nowMs - 3 * 86_400_000, zh, now: now, utcOffsetSeconds: shanghai) == "3/6")
    }
}

@Suite struct RowTextTests {
    @Test func unreadBadgeStopsAt99() {
        #expect(UnreadBadge.text(1) == "1")
        #expect(UnreadBadge.text(99) == "99")
        #expect(UnreadBadge.text(100) == "99+")
        #expect(UnreadBadge.text(Int.max) == "99+")
    }

    /// Every kind of line break becomes one space, and what is left is
    /// sanitised: a name or a preview cannot start a row of its own.
    @Test func oneLineFlattensEveryLineBreak() {
        #expect(TerminalSanitizer.oneLine("a\r\nb\nc\rd\u{2028}e\u{2029}f") == "a b c d e f")
        #expect(TerminalSanitizer.oneLine("a\n\n\nb") == "a b")
        #expect(TerminalSanitizer.oneLine("\u{1B}[2Jname\u{1B}]0;title\u{07}") == "name")
        #expect(TerminalSanitizer.oneLine("\u{202E}evil") == "¦evil")
    }

    @Test func fileExtensionsOfPictureTypes() {
        #expect(MediaType.fileExtension(for: "image/jpeg") == "jpg")
        #expect(MediaType.fileExtension(for: "image/png") == "png")
        #expect(MediaType.fileExtension(for: "image/gif") == "gif")
        #expect(MediaType.fileExtension(for: "image/webp") == "webp")
        #expect(MediaType.fileExtension(for: "application/pdf") == "bin")
    }
}

import Foundation
import Testing
@testable import ChatCore

@Suite struct ConversationIDTests {
    @Test func sortsAsPlainStrings() {
        #expect(ConversationIDHelper.make(myUid: 7, targetUid: 12) == "si_tb_12_tb_7")
        #expect(ConversationIDHelper.make(myUid: 12, targetUid: 7) == "si_tb_12_tb_7")
        #expect(ConversationIDHelper.make(myUid: 10, targetUid: 9) == "si_tb_10_tb_9")
        #expect(ConversationIDHelper.make(myUid: 9, targetUid: 10) == "si_tb_10_tb_9")
    }

    @Test func parsesAndValidates() {
        let parsed = ConversationIDHelper.parse("si_tb_12_tb_7")
        #expect(parsed?.0 == "tb_12")
        #expect(parsed?.1 == "tb_7")
        #expect(ConversationIDHelper.peerUid(in: "si_tb_12_tb_7", myUid: 7) == 12)
        #expect(ConversationIDHelper.peerUid(in: "si_tb_12_tb_7", myUid: 3) == nil)
        #expect(ConversationIDHelper.uids("si_tb_10_tb_9") ?? (0, 0) == (10, 9), "tb_10 sorts before tb_9 as a string")
        #expect(ConversationIDHelper.uids("si_tb_123456789012345678_tb_2") ?? (0, 0) == (123456789012345678, 2))
        for bad in ["", "si_", "si_tb_7_tb_12", "gr_tb_1_tb_2", "si_tb_1_tb_1", "si_tb_x_tb_2", "si_tb_0_tb_1",
                    "si_tb_1_tb_2_tb_3", "si_tb_-1_tb_2", "si_tb_01_tb_2", "si_tb_1_tb_02", "si_tb_1_tb_",
                    "si_tb_1_tb_1234567890123456789", "si_tb_1_tb_2 ", "si_tb_1_tb_２", "si_tb_1_TB_2", "si_tb_1__tb_2"] {
            #expect(ConversationIDHelper.parse(bad) == nil, "\(bad) must be rejected")
        }
    }

    @Test func imUidRoundTrip() {
        #expect(ConversationIDHelper.imUid(42) == "tb_42")
        #expect(ConversationIDHelper.uid(fromImUid: "tb_42") == 42)
        #expect(ConversationIDHelper.uid(fromImUid: "tb_") == nil)
        #expect(ConversationIDHelper.uid(fromImUid: "xx_1") == nil)
    }
}

func wire(_ type: Int, _ content: String, from: String = "tb_2", seq: Int = 1, revoked: Bool = false, flashViewed: Bool = false) -> WireMessage {
    WireMessage(serverMsgID: "m_\(seq)", clientMsgID: "c\(seq)", conversationId: "si_tb_1_tb_2", seq: seq,
                sendID: from, recvID: from == "tb_1" ? "tb_2" : "tb_1", contentType: type, content: content,
                sendTime: 1_763_800_000_000, revoked: revoked, flashViewed: flashViewed)
}

@Suite struct MapperTests {
    let me = "tb_1"

    @Test func text() {
        let m = IMMessageMapper.map(wire(101, "你好\n世界"), currentUID: me)
        #expect(m.type == .text)
        #expect(m.text == "你好\n世界")
        #expect(!m.isMe)
        #expect(IMMessageMapper.map(wire(101, "x", from: "tb_1"), currentUID: me).isMe)
    }

    @Test func image() {
        let m = IMMessageMapper.map(wire(110, #"{"type":"image","objectKey":"chat/image/a.jpg","url":"http://x/a","expireAt":100,"w":640,"h":480}"#), currentUID: me)
        #expect(m.type == .image)
        #expect(m.objectKey == "chat/image/a.jpg")
        #expect(m.imageUrl == "http://x/a")
        #expect(m.width == 640)
        #expect(m.height == 480)
        #expect(m.isURLExpired(now: Date(timeIntervalSince1970: 101)))
        #expect(!m.isURLExpired(now: Date(timeIntervalSince1970: 99)))
    }

    @Test func expireZeroNeverExpires() {
        let m = IMMessageMapper.map(wire(110, #"{"type":"image","objectKey":"k","url":"u","expireAt":0}"#), currentUID: me)
        #expect(!m.isURLExpired(now: Date(timeIntervalSince1970: 4_000_000_000)))
    }

    @Test func flashImageAndViewed() {
        let f = IMMessageMapper.map(wire(110, #"{"type":"flash_image","objectKey":"k","url":"u","expireAt":5}"#, flashViewed: true), currentUID: me)
        #expect(f.type == .flashImage)
        #expect(f.isFlash)
        #expect(f.isDestroyed)
        let v = IMMessageMapper.map(wire(110, #"{"type":"flash_viewed","msgId":"abc"}"#), currentUID: me)
        #expect(v.type == .flashViewed)
        #expect(v.content == .flashViewed(targetClientMsgID: "abc"))
        #expect(v.isControl)
    }

    @Test func multiImage() {
        let m = IMMessageMapper.map(wire(110, #"{"type":"multi_image","multiObjectKeys":["a","b"],"multiUrls":["ua","ub"],"expireAt":9}"#), currentUID: me)
        #expect(m.type == .multiImage)
        #expect(m.multiObjectKeys == ["a", "b"])
        #expect(m.multiImageUrls == ["ua", "ub"])
    }

    @Test func audio() {
        let m = IMMessageMapper.map(wire(110, #"{"type":"audio","objectKey":"k","url":"u","expireAt":9,"durationSec":12}"#), currentUID: me)
        #expect(m.type == .voice)
        #expect(m.durationSec == 12)
    }

    @Test func signalQuote() {
        let m = IMMessageMapper.map(wire(110, #"{"type":"signal_quote","signalId":3,"replyContent":"好呀","signalContent":"周末爬山?"}"#), currentUID: me)
        #expect(m.type == .signalQuote)
        #expect(m.signalQuoteId == 3)
        #expect(m.signalQuoteReply == "好呀")
        #expect(m.signalQuoteContent == "周末爬山?")
    }

    @Test func revokeNoticeAndRevoked() {
        let n = IMMessageMapper.map(wire(2101, #"{"clientMsgID":"c9"}"#), currentUID: me)
        #expect(n.content == .revokeNotice(targetClientMsgID: "c9"))
        #expect(n.isControl)
        let r = IMMessageMapper.map(wire(101, "", revoked: true), currentUID: me)
        #expect(r.isRecalled)
    }

    @Test(arguments: [
        "not json", "{", "[1,2]", #"{"type":"image"}"#, #"{"type":"image","objectKey":5}"#,
        #"{"type":"audio","objectKey":"k","url":"u","expireAt":1,"durationSec":"x"}"#,
        #"{"type":"multi_image","multiObjectKeys":"a"}"#, #"{"type":"sticker","msgDesc":"[表情]"}"#, #"{"no":"type"}"#,
        "\u{0}\u{1}", "",
    ])
    func malformedCustomBecomesUnknownKeepingRaw(_ raw: String) {
        let m = IMMessageMapper.map(wire(110, raw), currentUID: me)
        #expect(m.type == .unknown)
        #expect(m.content.unknown?.raw == raw)
    }

    @Test func unknownContentTypeKept() {
        let m = IMMessageMapper.map(wire(999, #"{"msgDesc":"[位置]"}"#), currentUID: me)
        #expect(m.type == .unknown)
        #expect(MessageKinds.summary(of: m, localizer: Localizer(language: .zhHans)) == "[位置]")
        let bad2101 = IMMessageMapper.map(wire(2101, "junk"), currentUID: me)
        #expect(bad2101.type == .unknown)
    }

    @Test func wireContentRoundTrip() throws {
        let payload = ImagePayload(objectKey: "k", url: "u", expireAt: 7, w: 10, h: 20)
        let (type, content) = try #require(IMMessageMapper.wireContent(for: .image(payload)))
        #expect(type == 110)
        let back = IMMessageMapper.map(wire(type, content), currentUID: me)
        #expect(back.content == .image(payload))
    }
}

@Suite struct SummaryTests {
    let zh = Localizer(language: .zhHans)
    let en = Localizer(language: .en)
    func summary(_ w: WireMessage, _ l: Localizer) -> String {
        MessageKinds.summary(of: IMMessageMapper.map(w, currentUID: "tb_1"), localizer: l)
    }

    @Test func chinese() {
        #expect(summary(wire(101, "第一行\n第二行"), zh) == "第一行 第二行")
        #expect(summary(wire(110, #"{"type":"image","objectKey":"k","url":"u","expireAt":1}"#), zh) == "[图片]")
        #expect(summary(wire(110, #"{"type":"flash_image","objectKey":"k","url":"u","expireAt":1}"#), zh) == "[闪照]")
        #expect(summary(wire(110, #"{"type":"audio","objectKey":"k","url":"u","expireAt":1,"durationSec":3}"#), zh) == "[语音]")
        #expect(summary(wire(110, #"{"type":"signal_quote","signalId":1,"replyContent":"r","signalContent":"s"}"#), zh) == "[信号回复]")
        #expect(summary(wire(101, "", revoked: true), zh) == "消息已撤回")
        #expect(summary(wire(101, "", from: "tb_1", revoked: true), zh) == "你撤回了一条消息")
        #expect(summary(wire(110, #"{"type":"zzz"}"#), zh) == "[未知消息类型]")
    }

    @Test func english() {
        #expect(summary(wire(110, #"{"type":"image","objectKey":"k","url":"u","expireAt":1}"#), en) == "[Image]")
        #expect(summary(wire(101, "", revoked: true), en) == "Message revoked")
        #expect(summary(wire(110, #"{"type":"zzz"}"#), en) == "[Unknown message type]")
    }

    @Test func bothTablesHaveTheSameKeys() {
        #expect(!zh.keys.isEmpty)
        #expect(zh.keys == en.keys)
    }

    @Test func languageResolution() {
        #expect(Language.resolve(environment: ["LANG": "en_US.UTF-8"]) == .en)
        #expect(Language.resolve(environment: ["LANG": "zh_CN.UTF-8"]) == .zhHans)
        #expect(Language.resolve(environment: ["LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"]) == .zhHans)
        #expect(Language.resolve(environment: ["LANG": "zh_CN.UTF-8", "TONGBAN_LANG": "en"]) == .en)
        #expect(Language.resolve(environment: [:]) == .zhHans)
    }
}

@Suite struct SanitizerTests {
    @Test func stripsEscapes() {
        #expect(TerminalSanitizer.sanitize("a\u{1B}[31mred\u{1B}[0m") == "ared")
        #expect(TerminalSanitizer.sanitize("x\u{1B}]0;title\u{07}y") == "xy")
        #expect(!TerminalSanitizer.sanitize("bell\u{07}").contains("\u{07}"))
        #expect(TerminalSanitizer.sanitize("你好😀") == "你好😀")
        #expect(!TerminalSanitizer.sanitize("a\u{9B}31m").unicodeScalars.contains { $0.value == 0x9B })
        #expect(!TerminalSanitizer.sanitize("a\u{202E}b").unicodeScalars.contains { $0.value == 0x202E })
    }

    @Test func safeBaseNames() {
        #expect(SafeFileName.base("../../etc/passwd") == "passwd")
        #expect(SafeFileName.base("..") == "file")
        #expect(SafeFileName.base("a/b\\c.jpg").hasSuffix("c.jpg"))
        #expect(!SafeFileName.base("x\u{0}y").contains("\u{0}"))
    }
}

@Suite struct HostileMediaHeaders {
    /// Durations from audio headers that do not fit an Int are unknown, not a trap.
    @Test func absurdDurationsAreUnknown() {
        func page(granule: [UInt8], body: [UInt8]) -> [UInt8] {
            Array("OggS".utf8) + [0, 0] + granule + Array(repeating: 0, count: 12) + body
        }
        let vorbisRate1: [UInt8] = [0x01] + Array("vorbis".utf8) + [0, 0, 0, 0, 1] + [1, 0, 0, 0]
        let maxGranule: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        let ogg = Data(page(granule: Array(repeating: 0, count: 8), body: vorbisRate1) + page(granule: maxGranule, body: [1]))
        #expect(MediaProbe.probe(ogg)?.kind == "chat_audio")
        #expect(MediaProbe.probe(ogg)?.durationSec == nil)
        let opusHead: [UInt8] = Array("OpusHead".utf8) + [1, 2, 0x38, 0x01] + Array(repeating: 0, count: 8)
        let minGranule: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x80]
        let opus = Data(page(granule: Array(repeating: 0, count: 8), body: opusHead) + page(granule: minGranule, body: [1]))
        #expect(MediaProbe.probe(opus)?.durationSec == nil || MediaProbe.probe(opus)?.durationSec == 0)
        // MP4 mvhd version 1: timescale 1, duration 2^63 - 1.
        var m4a: [UInt8] = [0, 0, 0, 16] + Array("ftypM4A ".utf8) + [0, 0, 0, 0]
        let mvhd: [UInt8] = Array("mvhd".utf8) + [1, 0, 0, 0] + Array(repeating: 0, count: 16) + [0, 0, 0, 1]
            + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        m4a += [0, 0, 0, UInt8(8 + 4 + mvhd.count)] + Array("moov".utf8) + [0, 0, 0, UInt8(4 + mvhd.count)] + mvhd
        #expect(MediaProbe.probe(Data(m4a))?.contentType == "audio/mp4")
        #expect(MediaProbe.probe(Data(m4a))?.durationSec == nil)
    }
}

@Suite struct WireDecodingTests {
    @Test func syncResponseSkipsUnknownEvents() throws {
        let json = #"""
        {"events":[{"kind":"message","message":{"serverMsgID":"m","clientMsgID":"c","conversationId":"si_tb_1_tb_2","seq":1,"sendID":"tb_2","recvID":"tb_1","contentType":101,"content":"hi","sendTime":1,"revoked":false,"flashViewed":false}},
        {"kind":"future_thing","x":1},{"kind":"message","message":{"seq":"bad"}}],"cursor":5,"hasMore":false}
        """#
        let r = try JSONDecoder().decode(SyncResponse.self, from: Data(json.utf8))
        #expect(r.events.count == 1)
        #expect(r.skippedEvents == 2)
        #expect(r.cursor == 5)
    }

    @Test func numbersThatWouldOverflowAreRefusedOrClamped() throws {
        func message(seq: String, time: String) -> String {
            #"{"serverMsgID":"m","clientMsgID":"c","conversationId":"si_tb_1_tb_2","seq":\#(seq),"sendID":"tb_2","recvID":"tb_1","contentType":101,"content":"hi","sendTime":\#(time),"revoked":false,"flashViewed":false}"#
        }
        let huge = String(Int.max)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WireMessage.self, from: Data(message(seq: huge, time: "1").utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WireMessage.self, from: Data(message(seq: "-1", time: "1").utf8)) }
        let clamped = try JSONDecoder().decode(WireMessage.self, from: Data(message(seq: "3", time: huge).utf8))
        #expect(clamped.seq == 3 && clamped.sendTime == 1 << 53)
        let summary = #"{"conversationId":"si_tb_1_tb_2","userId":"tb_2","showName":"B","faceURL":"","isPinned":false,"unreadCount":1,"lastMessageTime":1,"maxSeq":\#(huge),"readSeq":0,"isOnline":false,"isImOpened":false}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConversationSummary.self, from: Data(summary.utf8)) }
        // The send reply's seq is stored like any other: the same limits.
        func reply(seq: String, time: String) -> Data {
            Data(#"{"serverMsgID":"s","clientMsgID":"c","sendTime":\#(time),"seq":\#(seq)}"#.utf8)
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SendMessageResponse.self, from: reply(seq: huge, time: "1")) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SendMessageResponse.self, from: reply(seq: String(Int.min), time: "1")) }
        #expect(try JSONDecoder().decode(SendMessageResponse.self, from: reply(seq: "7", time: String(Int.min))).sendTime == 0)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SeqResponse.self, from: Data(#"{"seq":\#(huge)}"#.utf8)) }
        // Unread counts are counts: a thousand conversations of them cannot overflow a sum.
        let unread = summary.replacingOccurrences(of: #""maxSeq":\#(huge)"#, with: #""maxSeq":3"#)
            .replacingOccurrences(of: #""unreadCount":1"#, with: #""unreadCount":\#(huge)"#)
        #expect(try JSONDecoder().decode(ConversationSummary.self, from: Data(unread.utf8)).unreadCount == WireRange.maxCount)
        // A picture size nobody can draw is treated as unknown, not trapped on.
        let (_, content) = IMMessageMapper.decode(contentType: 110, content: #"{"type":"image","objectKey":"k","w":1e300,"h":-5}"#)
        let p = try #require(content.image, "\(content)")
        #expect(p.w == nil && p.h == nil)
    }

    /// The server writes message events and sync notices without an
    /// encoder: what it writes must decode to exactly what went in, for any
    /// text a user can send.
    @Test func directJSONDecodesToTheSameEvent() throws {
        let texts = ["你好 👋🏽 world", #"quote " backslash \ slash / end"#, "line\nbreak\r\ttab",
                     "\u{0}\u{1}\u{8}\u{C}\u{1B}[31m\u{1F}\u{7F}", "\u{2028}\u{2029}\u{202E}", "", #"{"type":"x","seq":-1}"#]
        for (i, text) in texts.enumerated() {
            var m = wire(101, text, seq: i + 1, revoked: i % 2 == 0, flashViewed: i % 3 == 0)
            m.sendTime = 1_763_800_000_000 + i
            if i % 2 == 1 {
                // v3: reactions (an emoji of several scalars, an id that needs escaping) and an edit time.
                var r = Reactions()
                r.set("👍", by: "tb_1", on: true)
                r.set("👨‍👩‍👧", by: "tb_\"2\\", on: true)
                r.set("👍", by: "tb_3", on: true)
                m.reactions = r
                m.editedAt = 1_763_800_100_000 + i
            }
            for event in [SyncEvent.message(m), .messageUpdate(m)] {
                let direct = event.jsonText { _ in Issue.record("message events are written directly"); return "" }
                let decoded = try JSONDecoder().decode(SyncEvent.self, from: Data(direct.utf8))
                #expect(decoded == event, "\(direct)")
                // The same object the Codable conformance writes (key order aside).
                let viaCodable = try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? NSDictionary
                let viaDirect = try JSONSerialization.jsonObject(with: Data(direct.utf8)) as? NSDictionary
                #expect(viaCodable == viaDirect)
            }
        }
        for frame in [PushFrame.sync(cursor: 42), .hello(cursor: 0)] {
            let text = frame.jsonText { _ in Issue.record("sync/hello are written directly"); return "" }
            #expect(try JSONDecoder().decode(PushFrame.self, from: Data(text.utf8)) == frame)
        }
        #expect(PushFrame.ping.jsonText { _ in "encoded" } == "encoded")
        let ack = SendMessageResponse(serverMsgID: "m_1", clientMsgID: "c\"\\\u{1}你", sendTime: 1_763_800_000_000, seq: 7)
        #expect(try JSONDecoder().decode(SendMessageResponse.self, from: Data(ack.jsonBytes)) == ack)
    }

    @Test func pushFrames() throws {
        let f = try JSONDecoder().decode(PushFrame.self, from: Data(#"{"type":"presence","userId":"tb_2","online":true}"#.utf8))
        #expect(f == .presence(userId: "tb_2", online: true))
        #expect(throws: (any Error).self) { try JSONDecoder().decode(PushFrame.self, from: Data(#"{"type":"x"}"#.utf8)) }
    }
}

@Suite struct LocalTimeTests {
    /// Fixed offsets: the fields a user in that zone would read on a clock.
    @Test func fieldsAtAFixedOffset() {
        // 2025-11-22 08:26:40 UTC.
        let ms = 1_763_800_000_000
        #expect(LocalTime.of(milliseconds: ms, utcOffsetSeconds: 0) == LocalTime(year: 2025, month: 11, day: 22, hour: 8, minute: 26))
        #expect(LocalTime.of(milliseconds: ms, utcOffsetSeconds: 8 * 3600) == LocalTime(year: 2025, month: 11, day: 22, hour: 16, minute: 26))
        // Across midnight backwards: New York (−5) is still on the 22nd at 03:26.
        #expect(LocalTime.of(milliseconds: ms, utcOffsetSeconds: -5 * 3600)?.hour == 3)
        #expect(LocalTime.of(milliseconds: ms - 9 * 3_600_000, utcOffsetSeconds: 0)?.day == 21)
        // One millisecond before the epoch is the last minute of 1969, not 1970.
        #expect(LocalTime.of(milliseconds: -1, utcOffsetSeconds: 0) == LocalTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59))
        #expect(LocalTime.of(milliseconds: 0, utcOffsetSeconds: 0)?.clock == "00:00")
    }

    /// Times from a store edited by hand: no trap, a year ~292 million
    /// years away (the C library still represents it).
    @Test func extremeInstantsDoNotTrap() {
        #expect((LocalTime.of(milliseconds: Int.max, utcOffsetSeconds: 0)?.year ?? Int.max) > 200_000_000)
        #expect((LocalTime.of(milliseconds: Int.min)?.year ?? Int.min) < -200_000_000)
        #expect((LocalTime.of(milliseconds: Int.max, utcOffsetSeconds: 14 * 3600)?.year ?? Int.max) > 200_000_000)
    }

    /// Day numbers count calendar days, so yesterday is always one less.
    @Test func dayNumbers() {
        #expect(LocalTime(year: 1970, month: 1, day: 1, hour: 0, minute: 0).dayNumber == 0)
        #expect(LocalTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59).dayNumber == -1)
        #expect(LocalTime(year: 2000, month: 3, day: 1, hour: 0, minute: 0).dayNumber == 11_017)
        #expect(LocalTime(year: 2024, month: 3, day: 1, hour: 0, minute: 0).dayNumber
                - LocalTime(year: 2024, month: 2, day: 28, hour: 0, minute: 0).dayNumber == 2, "leap day")
        #expect(LocalTime(year: 2026, month: 1, day: 1, hour: 0, minute: 0).dayNumber
                - LocalTime(year: 2025, month: 12, day: 31, hour: 0, minute: 0).dayNumber == 1)
    }

    /// The local zone agrees with Foundation's (both read TZ / /etc/localtime).
    @Test func localZoneAgreesWithFoundation() {
        let cal = Calendar.current
        for ms in stride(from: 1_700_000_000_000, to: 1_800_000_000_000, by: 7_777_777_777) {
            let c = cal.dateComponents([.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: Double(ms) / 1000))
            #expect(LocalTime.of(milliseconds: ms) == LocalTime(year: c.year!, month: c.month!, day: c.day!, hour: c.hour!, minute: c.minute!))
        }
    }
}

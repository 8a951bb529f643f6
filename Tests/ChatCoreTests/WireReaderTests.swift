@testable import ChatCore
import Foundation
import Testing

/// The direct reader of sync pages against the yardstick, Foundation's
/// JSONDecoder through the Codable conformance: whatever the reader gives
/// must be what the decoder gives, and what it cannot read exactly it must
/// leave to the decoder.
@Suite struct WireReaderTests {
    static func message(_ seq: Int, content: String = "你好世界 1") -> WireMessage {
        WireMessage(serverMsgID: "m_\(seq)", clientMsgID: "c_\(seq)", conversationId: "si_tb_1_tb_2", seq: seq,
                    sendID: "tb_1", recvID: "tb_2", contentType: 101, content: content, sendTime: 1_764_000_000_000 + seq)
    }

    /// A page as the server writes one: stored event bodies spliced into the envelope.
    static func page(_ bodies: [String], cursor: Int = 42, hasMore: Bool = false) -> Data {
        Data(#"{"events":[\#(bodies.joined(separator: ","))],"cursor":\#(cursor),"hasMore":\#(hasMore)}"#.utf8)
    }

    static func body(_ event: SyncEvent) throws -> String {
        try event.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    /// The decoder's answer and the answer `SyncResponse.decode` gives, which must be the same.
    static func expectAgreement(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        let yardstick = try? JSONDecoder().decode(SyncResponse.self, from: data)
        let direct = WireReader.page(data)
        let text = String(decoding: data, as: UTF8.self)
        if let direct {
            #expect(direct == yardstick, "read directly as \(direct), the decoder reads \(String(describing: yardstick)): \(text)",
                    sourceLocation: sourceLocation)
        }
        #expect((try? SyncResponse.decode(data)) == yardstick, "\(text)", sourceLocation: sourceLocation)
    }

    @Test func readsThePagesTheServerWritesWithoutTheDecoder() throws {
        var edited = Self.message(3, content: "edited")
        edited.editedAt = 1_764_000_100_000
        var gone = Self.message(4, content: "")
        gone.deletedForMe = true
        var expired = Self.message(5, content: "")
        expired.expired = true
        var flash = Self.message(6)
        flash.revoked = true
        flash.flashViewed = true
        let messages = [
            Self.message(1), Self.message(2, content: "quote \" backslash \\ slash / newline \n tab \t nul \u{0} bell \u{7} 👍🏽❤️"),
            edited, gone, expired, flash, Self.message(7, content: ""),
        ]
        let events = messages.flatMap { [SyncEvent.message($0), .messageUpdate($0)] }
        let data = Self.page(try events.map(Self.body), cursor: 1234, hasMore: true)
        let read = try #require(WireReader.pageCounting(data))
        #expect(read.page == SyncResponse(events: events, cursor: 1234, hasMore: true))
        // Every event was read here, none handed to the decoder.
        #expect(read.leftToDecoder == 0)
        Self.expectAgreement(data)
    }

    @Test func leavesOtherEventsToTheDecoderAndKeepsTheirOrder() throws {
        let events: [SyncEvent] = [
            .message(Self.message(1)), .read(conversationId: "si_tb_1_tb_2", userId: "tb_2", seq: 1),
            .message(Self.message(2)), .devices(userId: "tb_2"),
        ]
        let data = Self.page(try events.map(Self.body))
        let read = try #require(WireReader.pageCounting(data))
        #expect(read.page.events == events)
        #expect(read.leftToDecoder == 2)
        Self.expectAgreement(data)
    }

    static let m = #""serverMsgID":"m_1","clientMsgID":"c_1","conversationId":"si_tb_1_tb_2","seq":1,"sendID":"tb_1","recvID":"tb_2","contentType":101"#
    static let tail = #""sendTime":5,"revoked":false,"flashViewed":false"#

    /// Pages the server does not write but another server, a proxy or a
    /// damaged row could: each is read as the decoder reads it.
    @Test(arguments: [
        // Messages in forms this reader leaves to the decoder.
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"reactions":{"👍":["tb_2"]}}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"reactions":{}}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"reactions":"broken"}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"future":[1,{"a":null}]}}"#,
        #"{"message":{\#(m),"content":"x",\#(tail)},"kind":"message_update"}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail)},"extra":1}"#,
        #"{"kind":"mess\u0061ge","message":{\#(m),"content":"x",\#(tail)}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x","content":"y",\#(tail)}}"#,
        #"{"kind":"message","kind":"message_update","message":{\#(m),"content":"x",\#(tail)}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"editedAt":null}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"deletedForMe":"yes"}}"#,
        #"{"kind":"message","message":{\#(m),"content":"x",\#(tail),"deletedForMe":false,"expired":true}}"#,
        #"{"kind":"message","message":{\#(m),"content":null,\#(tail)}}"#,
        #"{"kind":"message","message":{\#(m),\#(tail)}}"#,
        // Escapes: \u in the plane, surrogate pairs, a lone surrogate, a bad escape.
        #"{"kind":"message","message":{\#(m),"content":"\u4f60\u597d \u00e9 \u0000 \/",\#(tail)}}"#,
        #"{"kind":"message","message":{\#(m),"content":"\uD83D\uDE00",\#(tail)}}"#,
        #"{"kind":"message","message":{\#(m),"content":"\uD83D",\#(tail)}}"#,
        #"{"kind":"message","message":{\#(m),"content":"\x",\#(tail)}}"#,
        // Numbers: ranges, fractions, exponents, signs, leading zeros, too many digits.
        #"{"kind":"message","message":{"seq":-1,"serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":1,"content":"","sendTime":5,"revoked":false,"flashViewed":false}}"#,
        #"{"kind":"message","message":{"seq":9007199254740993,"serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":1,"content":"","sendTime":5,"revoked":false,"flashViewed":false}}"#,
        #"{"kind":"message","message":{"seq":9007199254740992,"serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":1,"content":"","sendTime":-5,"revoked":false,"flashViewed":false,"editedAt":99999999999999999}}"#,
        #"{"kind":"message","message":{"seq":-0,"serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":1.0,"content":"","sendTime":1e3,"revoked":false,"flashViewed":false}}"#,
        #"{"kind":"message","message":{"seq":1,"serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":123456789012345678901,"content":"","sendTime":5,"revoked":false,"flashViewed":false}}"#,
        #"{"kind":"message","message":{"seq":01,"serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":1,"content":"","sendTime":5,"revoked":false,"flashViewed":false}}"#,
        #"{"kind":"message","message":{"seq":"1","serverMsgID":"m","clientMsgID":"c","conversationId":"si","sendID":"a","recvID":"b","contentType":1,"content":"","sendTime":5,"revoked":0,"flashViewed":false}}"#,
        // Events that are not message events, or not events at all.
        #"{"kind":"telepathy","message":{\#(m),"content":"x",\#(tail)}}"#, #"{"kind":"message"}"#, #"{}"#, "5", "null", "[]", #""message""#,
        // Blanks wherever JSON allows them.
        " {\n\t\"kind\" : \"message\" ,\r\n \"message\" : { \(m) , \"content\" : \"x\" , \(tail) } } ",
    ])
    func agreesWithTheDecoderOnEventsTheServerDoesNotWrite(_ event: String) throws {
        Self.expectAgreement(Self.page([try Self.body(.message(Self.message(9))), event, try Self.body(.message(Self.message(10)))]))
    }

    @Test(arguments: [
        #"{"events":[],"cursor":0,"hasMore":false}"#, #" { "hasMore" : true , "cursor" : 7 , "events" : [ ] } "#,
        #"{"events":[],"cursor":0,"hasMore":false,"newer":{"a":[1,2,{"b":"\u00e9"}]}}"#,
        #"{"events":[],"cursor":0}"#, #"{"events":null,"cursor":0,"hasMore":false}"#, #"{"events":[],"cursor":0.5,"hasMore":false}"#,
        #"{"events":[],"cursor":0,"hasMore":false} x"#, #"{"events":[],"cursor":0,"hasMore":false}}"#,
        #"{"events":[],"events":[],"cursor":0,"hasMore":false}"#, #"{"events":[,],"cursor":0,"hasMore":false}"#,
        #"{"events":[{"kind":"message"],"cursor":0,"hasMore":false}"#, #"{"events":[5 6],"cursor":0,"hasMore":false}"#,
        #"{"curs\u006fr":3,"events":[],"hasMore":false}"#, "", "[]", "{", "\u{FEFF}{\"events\":[],\"cursor\":0,\"hasMore\":false}",
    ])
    func agreesWithTheDecoderOnEveryPage(_ text: String) {
        Self.expectAgreement(Data(text.utf8))
    }

    @Test func leavesTextThatIsNotUTF8ToTheDecoder() throws {
        var data = Self.page([try Self.body(.message(Self.message(1, content: "ab")))])
        let at = try #require(data.firstRange(of: Data("ab".utf8))).lowerBound
        data[at] = 0xFF
        #expect(WireReader.page(data) == nil)
        Self.expectAgreement(data)
    }

    /// Damaged copies of a real page, every byte position hit: replaced (by
    /// each of the bytes that matter to JSON in turn), removed, doubled.
    @Test func agreesWithTheDecoderOnDamagedPages() throws {
        let events: [SyncEvent] = [
            .message(Self.message(1, content: "你好 \"q\" \\ \n")), .messageUpdate(Self.message(2)),
            .read(conversationId: "si_tb_1_tb_2", userId: "tb_2", seq: 2),
        ]
        let original = [UInt8](Self.page(try events.map(Self.body), cursor: 9, hasMore: true))
        let replacements: [UInt8] = Array(#"{}[],:"\ 0123456789-.eEtfnu"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        for at in original.indices {
            var replaced = original
            replaced[at] = replacements[at % replacements.count]
            var removed = original
            removed.remove(at: at)
            var doubled = original
            doubled.insert(original[at], at: at)
            for damaged in [replaced, removed, doubled] { Self.expectAgreement(Data(damaged)) }
        }
    }

    /// The frames the server writes on every commit and to a room, read directly.
    @Test func readsTheServersFramesWithoutTheDecoder() throws {
        let encode = { (f: PushFrame) in String(decoding: try JSONEncoder().encode(f), as: UTF8.self) }
        var edited = Self.message(3, content: "改过 \"q\"")
        edited.editedAt = 9
        for frame in [PushFrame.sync(cursor: 12345), .hello(cursor: 0), .room(Self.message(1)), .roomUpdate(edited)] {
            let text = try frame.jsonText(encode: encode)
            #expect(WireReader.frame(text) == frame, "\(text)")
            #expect(PushFrame.decode(text) == frame)
        }
    }

    @Test(arguments: [
        #"{"cursor":7,"type":"sync"}"#, #" { "type" : "hello" , "cursor" : 0 } "#, #"{"type":"sync","cursor":7,"extra":true}"#,
        #"{"type":"sync","cursor":7.0}"#, #"{"type":"sync","cursor":"7"}"#, #"{"type":"sync"}"#, #"{"type":"sync","cursor":7} x"#,
        #"{"type":"sync","type":"hello","cursor":7}"#, #"{"type":"sy\u006ec","cursor":7}"#, #"{"type":"ping"}"#, #"{"type":"pong"}"#,
        #"{"type":"presence","userId":"tb_2","online":true}"#, #"{"type":"typing","conversationId":"si_tb_1_tb_2","userId":"tb_2"}"#,
        #"{"type":"room","cursor":3,"message":{\#(m),"content":"x",\#(tail)}}"#,
        #"{"type":"room_update","message":{\#(m),"content":"x",\#(tail),"reactions":{"👍":["tb_2"]}}}"#,
        #"{"type":"room","message":{\#(m),\#(tail)}}"#, #"{"type":"telepathy","cursor":1}"#, "", "[]", "{}", "{",
    ])
    func agreesWithTheDecoderOnEveryFrame(_ text: String) {
        let yardstick = try? JSONDecoder().decode(PushFrame.self, from: Data(text.utf8))
        if let direct = WireReader.frame(text) { #expect(direct == yardstick, "\(text)") }
        #expect(PushFrame.decode(text) == yardstick, "\(text)")
    }
}

import ChatCore
import Foundation
import Testing

@Suite struct JSONSyntaxTests {
    @Test(arguments: [
        #"{}"#, #" {"a":1} "#, #"{"a":[1,-2.5e+3,0,0.5,true,false,null,"x"]}"#,
        #"{"s":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#, #"{"你好":"世界 👍🏽"}"#,
        #"{"a":{"b":{"c":[[],{}]}}}"#, "{\n\t\"a\" : 1 ,\r\n \"b\":2}",
    ])
    func acceptsWellFormedObjects(_ text: String) {
        #expect(JSONSyntax.isObject(text))
        // The yardstick: Foundation reads it as an object too.
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any])
    }

    @Test(arguments: [
        "", " ", "[]", #""s""#, "1", "null", #"{"a":1"#, #"{"a":1}}"#, #"{"a":1} x"#, #"{"a":1,}"#,
        #"{a:1}"#, #"{"a" 1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":1e}"#, #"{"a":-}"#,
        #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":"x}"#, #"{"a":"\x"}"#, #"{"a":"\u12G4"}"#,
        "{\"a\":\"tab\tinside\"}", #"{"a":[1,2}"#, #"{"a":[1,]}"#, #"{"a":'x'}"#, #"{"a":1}{"b":2}"#,
    ])
    func refusesAnythingElse(_ text: String) {
        #expect(!JSONSyntax.isObject(text))
    }

    @Test func refusesNestingPastTheLimitWithoutRecursingForEver() {
        let deep = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(!JSONSyntax.isObject(deep))
        let fine = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(JSONSyntax.isObject(fine))
    }

    /// Every event the server stores passes, whatever its text holds.
    @Test func acceptsTheEventsTheServerWrites() throws {
        for content in ["你好", "quote \" backslash \\ newline \n nul \u{0} bell \u{7} del \u{7F}", "👍🏽❤️", ""] {
            let m = WireMessage(serverMsgID: "m_1", clientMsgID: "c\"1", conversationId: "si_tb_1_tb_2", seq: 1,
                                sendID: "tb_1", recvID: "tb_2", contentType: 101, content: content, sendTime: 1)
            for event in [SyncEvent.message(m), .messageUpdate(m)] {
                let text = try event.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
                #expect(JSONSyntax.isObject(text), "\(text)")
                #expect(try JSONDecoder().decode(SyncEvent.self, from: Data(text.utf8)) == event)
            }
        }
    }
}

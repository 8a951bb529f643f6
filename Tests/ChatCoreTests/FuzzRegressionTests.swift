import Foundation
import Testing
@testable import ChatCore

/// Inputs the fuzzers under Fuzz/ found (kept in Fuzz/regressions/<target>/
/// and replayed by `make fuzz-replay`), each with the promise it broke.
@Suite struct FuzzRegressionTests {
    /// fuzz-summary, Fuzz/regressions/summary/conversation-id-19-digits.json:
    /// a conversation id with a uid of 19 or more digits trapped on Int
    /// overflow in ConversationIDHelper.uids (the 19th digit was multiplied
    /// in before the 18-digit limit was checked). The client checks every
    /// summary's and message's id, the server every request's, so one such
    /// id stopped either process.
    @Test func conversationIDWithATooLongUidIsRefusedNotTrapped() throws {
        let page = #"[{"conversationId": "si_tb_1_tb_999999999999999999999999999999999999999999999999999999999999999999999999992", "userId": "tb_2", "showName": "Bob", "faceURL": "", "isPinned": false, "unreadCount": 3, "lastMessage": {"serverMsgID": "m_9f2c", "clientMsgID": "6F1C-1@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@7", "conversationId": "si_tb_1_tb_2", "seq": 17, "sendID": "tb_1", "recvID": "tb_2", "contentType": 117, "content": "{\"type\":\"audio\",\"objectKey\":\"k\",\"url\":\"u\",\"expireAt\":9,\"durationSec\":12}", "sendTime": 1763800000000, "revoked": false, "flashViewed": false}, "lastMessageTime": 1763800000000, "maxSeq": 17, "readonId": "si_tb_10_tb_9", "userId": "tb_9", "showName": "Bob", "faceURL": "", "": 17, "readSeq": 14, "isOnline": true, "isImOpened": true}]"#
        let list = try JSONDecoder().decode([ConversationSummary].self, from: Data(page.utf8))
        #expect(list.count == 1)
        #expect(ConversationIDHelper.uids(list[0].conversationId) == nil)
        #expect(ConversationIDHelper.peerUid(in: list[0].conversationId, myUid: 1) == nil)
        for id in ["si_tb_1_tb_9999999999999999999", "si_tb_9223372036854775808_tb_1", "si_tb_1_tb_" + String(repeating: "9", count: 80)] {
            #expect(ConversationIDHelper.parse(id) == nil, "\(id)")
        }
        // 18 digits, the longest uid there is, still reads.
        #expect(ConversationIDHelper.uids("si_tb_1_tb_999999999999999999") ?? (0, 0) == (1, 999_999_999_999_999_999))
    }

    /// fuzz-sanitizer, Fuzz/regressions/sanitizer/: the safe base name (then
    /// TerminalSanitizer.safeBaseName, now SafeFileName.base) promises
    /// "no leading dot", but stripped dots before trimming blanks, so
    /// " .." became ".." (the parent folder, for MediaCacheService's
    /// per-conversation folder) and " \0.x" a hidden ".x"; and it compared
    /// Characters, so a dot with a combining mark (".\u{301}x") kept its dot.
    @Test(arguments: [
        [0x20, 0x00, 0x2E, 0xE4],  // leading-dot-after-blank (as found: blank, NUL, dot, broken UTF-8)
        [0x20, 0x2E, 0x2E],        // dotdot-after-blank
        [0x2E, 0xCC, 0x81, 0x78],  // dot-with-combining-mark
    ] as [[UInt8]])
    func safeBaseNameNeverStartsWithADot(_ bytes: [UInt8]) {
        let name = SafeFileName.base(String(decoding: bytes, as: UTF8.self))
        #expect(name.unicodeScalars.first != ".", "\(name.debugDescription)")
        #expect(!name.isEmpty && name != "..")
    }

    @Test func safeBaseNameStillKeepsOrdinaryNames() {
        #expect(SafeFileName.base("  . .x") == "x")
        #expect(SafeFileName.base(" ..") == "file")
        #expect(SafeFileName.base("chat/image/a.b.jpg ") == "a.b.jpg")
        #expect(SafeFileName.base(".hidden") == "hidden")
    }

    /// fuzz-sanitizer, Fuzz/regressions/sanitizer/prepend-mark-hides-*:
    /// SafeFileName.base split the name into components by Character, and a
    /// prepended concatenation mark (U+0602, removed afterwards as a format
    /// character) joins the "/" or "\\" after it into one Character, so the
    /// separator survived: "x\u{602}/..\u{602}/..\u{602}/.bashrc" became
    /// "x/../../.bashrc", a path out of the download folder.
    @Test(arguments: [
        [0x20, 0x20, 0xE2, 0x80, 0x99, 0x52, 0x61, 0x6E, 0x67, 0x65, 0x61, 0xD8, 0x82, 0x5C],  // as found
        Array("x\u{602}/..\u{602}/..\u{602}/.bashrc".utf8),
        Array("a\u{D4E}/b".utf8),  // a prepended letter (not a format character) as well
    ] as [[UInt8]])
    func safeBaseNameHasNoSeparatorBehindAPrependedMark(_ bytes: [UInt8]) {
        let name = SafeFileName.base(String(decoding: bytes, as: UTF8.self))
        #expect(!name.unicodeScalars.contains("/") && !name.unicodeScalars.contains("\\"), "\(name.debugDescription)")
        #expect(name.unicodeScalars.first != ".")
    }

    /// fuzz-sanitizer, Fuzz/regressions/sanitizer/one-grapheme-over-limit.txt:
    /// a name whose stem is one Character longer than 255 bytes (a letter and
    /// 200 combining marks) was cut whole, leaving ".txt" (hidden), or ""
    /// without an extension (the folder itself), where "fallback when
    /// nothing is left" was promised.
    @Test func safeBaseNameOfOneHugeCharacterIsTheFallback() {
        let huge = "a" + String(repeating: "\u{301}", count: 200)
        #expect(SafeFileName.base(huge + ".txt") == "file")
        #expect(SafeFileName.base(huge) == "file")
        #expect(SafeFileName.base(String(repeating: "a", count: 300) + ".txt").hasSuffix("a.txt"))
    }

    /// fuzz-payload, Fuzz/regressions/payload/string-int-beyond-number-range.json:
    /// JSONObject.int took a number as a string ("4333333333333333333")
    /// beyond the range it takes as a JSON number (9e15), so the payload did
    /// not read back as itself once written (expireAt became 0 on the way
    /// back; a signal quote's signalId made it unreadable).
    @Test func numbersInStringsHaveTheSameRangeAsNumbers() throws {
        let content = String(decoding: try #require(Data(base64Encoded: "eyJ0eXBlIjoiYXVkaW8iLCJvYmplY3RLZXkiOiJrMWUt/////zQwMCIsInVybCI6IiIsImV4cGlyZUF0IjoiIDQzMzMzMzMzMzMzMzMzMzMzMzMgIiwiZHVyYXRpb25TZWMiOiIxMiIsInciOjFlMzAwfQ==")), as: UTF8.self)
        let (type, decoded) = IMMessageMapper.decode(contentType: ContentType.custom, content: content)
        #expect(type == .voice)
        let p = try #require(decoded.audio, "\(decoded)")
        #expect(p.expireAt == 0 && p.durationSec == 12)
        let (_, body) = try #require(IMMessageMapper.wireContent(for: decoded))
        #expect(IMMessageMapper.decode(contentType: ContentType.custom, content: body).1 == decoded)
        let obj = try #require(JSONObject(jsonText: #"{"a":" 8999999999999999 ","b":"9000000000000000","c":"-9223372036854775808"}"#))
        #expect(obj.int("a") == 8_999_999_999_999_999)
        #expect(obj.int("b") == nil && obj.int("c") == nil)
    }

    /// fuzz-payload, Fuzz/regressions/payload/file-name-line-separator.json:
    /// a file payload's name with U+2028 (LINE SEPARATOR, escaped in the
    /// JSON) made the "one-line summary" of the list two lines: the sanitiser
    /// leaves U+2028/2029 alone, and the file summary was not flattened as
    /// the text and unknown kinds' are.
    @Test func fileSummaryIsOneLine() throws {
        let found = String(decoding: try #require(Data(base64Encoded: "eyJ0eXBlIjoiZmlsZSIsIm9iamVjdEtleSI6ImNoYTEx0cgyL2EuYmluIiwidXIwbCI6InUiLCJleHBpcmVBdCI6MiwibmFtZSI6Il1dXdic/9ic/9icOtic/9icnDrYnP/YnFx1MjAyOGVwb3J0LnBkZiIsInNpemUiOjEyMzQ1LCJtaW1lIjoiYXBwbGljYXRpb25wZGYifQ==")), as: UTF8.self)
        for content in [found, #"{"type":"file","objectKey":"k","name":"a\u2028b\u2029c.pdf","size":1}"#] {
            let wire = WireMessage(serverMsgID: "m_1", clientMsgID: "c_1", conversationId: "si_tb_1_tb_2", seq: 1, sendID: "tb_2",
                                   recvID: "tb_1", contentType: ContentType.custom, content: content, sendTime: 1)
            let msg = IMMessageMapper.map(wire, currentUID: "tb_1")
            #expect(msg.type == .file)
            for language in Language.allCases {
                let summary = MessageKinds.summary(of: msg, localizer: Localizer(language: language))
                let lines = summary.split(whereSeparator: \.isNewline).count
                #expect(lines == 1, "\(summary.debugDescription)")
            }
        }
    }

    /// fuzz-sync, Fuzz/regressions/sync/: two promises of the fuzzers'
    /// shared checks that the code never made, found once the sync fuzzer
    /// reached secret chats' forms. A secret chat's row (contentType 300)
    /// that did not open reads as sealed and is never written again as
    /// read (the client seals each message anew), and an `ss_` id is what
    /// `secret()` makes for its two uids, not what `make()` makes.
    @Test func secretChatsRowsAndIdsReadAsTheirOwn() {
        let (type, content) = IMMessageMapper.decode(contentType: SecretWire.contentType, content: "hi")
        #expect(type == .sealed)
        #expect(content.sealed != nil)
        #expect(IMMessageMapper.wireContent(for: content) == nil)
        let id = "ss_tb_1_tb_2"
        let uids = ConversationIDHelper.uids(id)
        #expect(uids?.0 == 1 && uids?.1 == 2)
        #expect(ConversationIDHelper.secret(myUid: 2, targetUid: 1) == id)
        #expect(ConversationIDHelper.openChat(of: id) == ConversationIDHelper.make(myUid: 1, targetUid: 2))
    }
}

import Testing
@testable import ChatCore

/// What may be done with a message is its kind's, read by the menu, the CLI
/// and the server alike: these are the rules a user meets.
@Suite struct CapabilityTests {
    let me = "tb_1"

    func mine(_ type: Int, _ content: String, seq: Int = 3) -> ChatMessage {
        IMMessageMapper.map(wire(type, content, from: me, seq: seq), currentUID: me)
    }

    @Test func aFlashImageIsSeenOnceNeverForwardedOrKept() {
        let flash = mine(110, #"{"type":"flash_image","objectKey":"k"}"#)
        #expect(flash.isFlash)
        #expect(!flash.allows(.forwardable) && !flash.allows(.keepable))
        #expect(flash.forwarded == nil)
        #expect(flash.allows(.quotable) && flash.allows(.reactable) && flash.can(.revocable))
        #expect(!flash.isEditable)
    }

    @Test func onlyTextsMentionsAndRepliesOfMineAreEditedAndKeepWhatTheyNamed() throws {
        #expect(mine(101, "hi").isEditable)
        let theirs = IMMessageMapper.map(wire(101, "hi", from: "tb_2"), currentUID: me)
        #expect(!theirs.isEditable)
        #expect(!mine(110, #"{"type":"image","objectKey":"k"}"#).isEditable)
        var unsent = mine(101, "hi")
        unsent.status = .sending
        #expect(!unsent.isEditable && !unsent.allows(.forwardable))

        let mention = mine(106, #"{"text":"@bob hi","atUserIDs":["tb_2"],"atAll":false}"#)
        #expect(mention.isEditable)
        let reworded = try #require(MessageKinds.kind(for: mention.type).reword?(mention.content, "@bob hello"))
        #expect(reworded.mention == MentionPayload(text: "@bob hello", atUserIDs: ["tb_2"], atAll: false))
        let reply = mine(114, #"{"text":"yes","quote":{"clientMsgID":"c1","seq":1}}"#)
        let rewordedReply = try #require(MessageKinds.kind(for: reply.type).reword?(reply.content, "no"))
        #expect(rewordedReply.quote?.text == "no" && rewordedReply.quote?.quote.clientMsgID == "c1")
    }

    @Test func forwardingSendsMentionsAsTextAndARecordAsARecordOfItself() {
        #expect(mine(106, #"{"text":"@bob hi","atUserIDs":["tb_2"]}"#).forwarded == .text("@bob hi"))
        let record = mine(107, #"{"title":"聊天记录","items":[{"conversationId":"si_tb_1_tb_3","clientMsgID":"x"}]}"#)
        #expect(record.forwarded?.merged?.items == [MergedPayload.Item(conversationId: "si_tb_1_tb_2", clientMsgID: "c3")])
        #expect(mine(101, "plain").forwarded == .text("plain"))
    }

    @Test func noticesAllowNothing() {
        let notice = IMMessageMapper.map(wire(1509, #"{"opUser":{"uid":1,"username":"a"},"users":[]}"#), currentUID: me)
        #expect(notice.type == .groupNotice)
        for capability: MessageKind.Capabilities in [.forwardable, .keepable, .quotable, .reactable, .revocable] {
            #expect(!notice.can(capability))
        }
        let viewed = mine(110, #"{"type":"flash_viewed","msgId":"abc"}"#)
        #expect(!viewed.can(.revocable) && !viewed.can(.forwardable))
    }

    @Test func aRevokedMessageAllowsNothingButItsKindStaysWhatItWas() {
        let revoked = IMMessageMapper.map(wire(101, "gone", from: me, revoked: true), currentUID: me)
        #expect(!revoked.allows(.forwardable) && !revoked.allows(.keepable) && !revoked.isEditable)
    }

    @Test func whatTheServerTakesIsEachKindsOwnCheck() {
        let limits = ContentLimits(maxTextCharacters: 10, maxMentions: 2)
        func check(_ type: Int, _ content: String) -> ContentProblem? {
            if case .failure(let p) = MessageKinds.validate(contentType: type, content: content, limits: limits) { return p }
            return nil
        }
        #expect(check(101, "好") == nil)
        #expect(check(101, " \n") == .invalid("content must not be empty"))
        #expect(check(101, String(repeating: "长", count: 11)) == .tooLarge("text is longer than 10 characters"))
        #expect(check(106, #"{"text":"hi","atUserIDs":["a","b","c"]}"#) == .invalid("too many mentions"))
        #expect(check(106, "{}") == .invalid(#"a mention's content must be {"text", "atUserIDs": [String], "atAll"}"#))
        #expect(check(1509, #"{"opUser":{"uid":1,"username":"a"},"users":[]}"#) == .invalid("notices are made by the server"))
        #expect(check(2101, #"{"clientMsgID":"x"}"#) == .invalid("revoke notices are made by the server; use /chat/message/revoke"))
        #expect(check(110, #"{"type":"image"}"#) == .invalid("custom image payload is missing fields or has wrong types"))
        #expect(check(110, #"{"type":"sticker_v9","id":1}"#) == nil, "a newer client's kind is kept as it is")
        #expect(check(110, #"{"type":"signal_quote","signalId":1,"replyContent":"十一个字十一个字十一个"}"#)
                == .tooLarge("reply is longer than 10 characters"))
        #expect(check(107, #"{"title":"t","items":[]}"#) == .invalid("a merged forward holds 1-100 messages"))
        #expect(check(9999, "x") == .invalid("unknown contentType 9999"))
    }
}

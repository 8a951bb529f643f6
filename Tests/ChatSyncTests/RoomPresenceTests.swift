import ChatCore
import Testing
@testable import ChatSync

/// Being in a room, as the full-screen client and `tongban room enter` both
/// keep it: nothing said while present is lost, and who is here follows
/// the notices.
@Suite struct RoomPresenceTests {
    static let room = RoomInfo(roomId: 5, name: "周末徒步", uniqueName: "hike", ownerId: "tb_1", presentCount: 2)

    static func said(_ seq: Int, by who: String = "tb_2") -> WireMessage {
        WireMessage(serverMsgID: "s\(seq)", clientMsgID: "c\(seq)", conversationId: room.conversationId, seq: seq,
                    sendID: who, recvID: room.conversationId, contentType: ContentType.text, content: "第 \(seq) 条", sendTime: seq)
    }

    static func notice(_ seq: Int, _ type: Int, op: String, users: [String] = [], names: [String: String] = [:]) -> WireMessage {
        WireMessage(serverMsgID: "s\(seq)", clientMsgID: "c\(seq)", conversationId: room.conversationId, seq: seq,
                    sendID: op, recvID: room.conversationId, contentType: type,
                    content: GroupNoticePayload(contentType: type, opUser: op, users: users, userNames: names).jsonText, sendTime: seq)
    }

    static let alice = UserBasicInfo(uid: 1, username: "Alice")
    static let bob = UserBasicInfo(uid: 2, username: "Bob")

    func entered(_ seqs: ClosedRange<Int>) -> EnterRoomResponse {
        EnterRoomResponse(room: Self.room, present: [Self.alice, Self.bob], messages: seqs.map { Self.said($0) })
    }

    @Test func aPushPastAGapAsksForTheGapFirst() {
        var p = RoomPresence(entered(1...10))
        #expect(p.lastSeq == 10 && p.names["tb_2"] == "Bob")
        #expect(p.afterEntering == [.fill(after: 10, before: .max)], "pushes before the answer are asked for again")
        #expect(p.pushed(Self.said(11), me: "tb_1").needs.isEmpty)
        #expect(p.pushed(Self.said(15), me: "tb_1").needs == [.fill(after: 11, before: 15)])
        #expect(p.lastSeq == 15)
    }

    /// The CLI once printed the new page first and then filled after it,
    /// so what was said while away was never fetched.
    @Test func enteringAgainFillsWhatWasSaidWhileAway() {
        var p = RoomPresence(entered(1...10))
        #expect(p.enteredAgain(entered(31...80)) == [.fill(after: 10, before: 31)])
        #expect(p.lastSeq == 80)
        #expect(p.enteredAgain(entered(81...90)).isEmpty, "no gap")
    }

    @Test func whoIsHereFollowsTheNoticesAndAGapWithMovementsAsksAgain() {
        var p = RoomPresence(entered(1...3))
        let carol = "tb_3"
        _ = p.pushed(Self.notice(4, ContentType.roomEntered, op: carol, names: [carol: "Carol"]), me: "tb_1")
        #expect(p.present.map(\.username) == ["Alice", "Bob", "Carol"])
        _ = p.pushed(Self.notice(5, ContentType.roomLeft, op: "tb_2"), me: "tb_1")
        #expect(p.present.map(\.username) == ["Alice", "Carol"])
        #expect(p.names["tb_2"] == "Bob", "a name stays for what they said")
        // An old stretch names people but says nothing of who is here now.
        #expect(p.filled([Self.notice(6, ContentType.roomEntered, op: "tb_9", names: ["tb_9": "Dan"])]) == [.present])
        #expect(p.present.count == 2 && p.names["tb_9"] == "Dan")
        #expect(p.filled([Self.said(7)]).isEmpty)
    }

    @Test func beingRemovedOrTheRoomDroppedEndsIt() {
        var p = RoomPresence(entered(1...3))
        #expect(p.pushed(Self.notice(4, ContentType.roomKicked, op: "tb_1", users: ["tb_2"]), me: "tb_9").ended == nil)
        #expect(p.pushed(Self.notice(5, ContentType.roomKicked, op: "tb_1", users: ["tb_9"]), me: "tb_9").ended == .removed)
        #expect(p.pushed(Self.notice(6, ContentType.roomDropped, op: "tb_1"), me: "tb_9").ended == .dropped)
    }
}

import ChatCore
import ChatSync
import ChatViewModels
import Testing
@testable import TongbanTUI

/// The rooms I am in, on their own: what the room effects and the socket
/// say, and what the update asks of the app.
@Suite struct RoomsStateTests {
    static let zh = Localizer(language: .zhHans)

    static func entered(_ id: Int, _ unique: String, seqs: ClosedRange<Int>) -> EnterRoomResponse {
        let room = "sr_\(id)"
        return EnterRoomResponse(room: RoomInfo(roomId: id, name: unique, uniqueName: unique, ownerId: "tb_2", presentCount: 3),
                                 present: RoomFixture.present, messages: seqs.map { RoomFixture.wire($0, from: "tb_2", "第 \($0) 条", room: room) })
    }

    @Test func aReconnectEntersEveryRoomAgainAndTheQueueGoesOnOnceAllAre() {
        var rooms = RoomsState()
        let first = rooms.update(.entered(Self.entered(5, "hike", seqs: 1...3), again: false), me: "tb_1", Self.zh)
        #expect(first.added?.id == "sr_5" && !first.quietly && first.effects == [.room(.fill(first.added!.info, after: 3, before: .max))])
        _ = rooms.update(.entered(Self.entered(6, "quiet", seqs: 1...1), again: false), me: "tb_1", Self.zh)

        #expect(rooms.backOnline() == [.room(.enter(unique: "hike", again: true)), .room(.enter(unique: "quiet", again: true))])
        let hike = rooms.update(.entered(Self.entered(5, "hike", seqs: 10...12), again: true), me: "tb_1", Self.zh)
        #expect(hike.added == nil && hike.effects == [.room(.fill(rooms.entries[0].info, after: 3, before: 10))],
                "what was said while away, and the queue still waits for the other room")
        let quiet = rooms.update(.reenterFailed(unique: "quiet", reason: Failure(APIError.cannotConnect("refused"))), me: "tb_1", Self.zh)
        #expect(quiet.removed == 6 && quiet.then == [.resumeSending] && quiet.status?.contains("quiet") == true)
    }

    @Test func aPushAfterAGapAsksForItFirstAndUnseenNewsMarksTheRow() {
        var rooms = RoomsState()
        _ = rooms.update(.entered(Self.entered(5, "hike", seqs: 1...3), again: false), me: "tb_1", Self.zh)
        let push = RoomFixture.wire(6, from: "tb_3", "我来了")
        let step = rooms.pushed(.message(push), me: "tb_1", seen: nil, Self.zh)
        #expect(step.effects == [.room(.fill(rooms.entries[0].info, after: 3, before: 6)), .room(.keep(push, rooms.entries[0].info))])
        #expect(rooms.entries[0].unseen && rooms.entries[0].preview == "我来了")
        let kicked = RoomFixture.notice(7, ContentType.roomKicked, op: "tb_2", users: ["tb_1"])
        #expect(rooms.pushed(.message(kicked), me: "tb_1", seen: "sr_5", Self.zh).removed == 5)
    }
}

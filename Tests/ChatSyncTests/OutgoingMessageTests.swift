import ChatCore
import ChatStore
import Foundation
import Testing
@testable import ChatSync

/// Pictures and voice messages as the outbox keeps them: each file named in
/// the payload by the placeholder its upload replaces. Nothing is sent.
@Suite struct OutgoingMessageTests {
    let conv = ConversationIDHelper.make(myUid: 1, targetUid: 2)

    func sendQueue() throws -> (SendQueue, ChatStore) {
        let store = try ChatStore(path: tempURL("outgoing").appendingPathComponent("chat.sqlite").path, myUid: 1)
        return (SendQueue(api: APIClient(baseURL: "http://127.0.0.1:9"), store: store), store)
    }

    func uploads(_ store: ChatStore, _ id: String) throws -> [SendQueue.PendingUpload] {
        let row = try #require(try store.outbox().first { $0.clientMsgID == id })
        return try JSONDecoder().decode([SendQueue.PendingUpload].self, from: Data((row.pendingUploads ?? "").utf8))
    }

    @Test func aPictureAndAFlashImage() async throws {
        let (repo, store) = try sendQueue()
        let picture = try await repo.enqueueImage(path: "/p/a.jpg", contentType: "image/jpeg", width: 640, height: 480, to: conv)
        #expect(picture.chatMessage(myImUid: "tb_1").content == .image(ImagePayload(objectKey: "@upload0", w: 640, h: 480)))
        #expect(try uploads(store, picture.clientMsgID)
                == [.init(path: "/p/a.jpg", contentType: "image/jpeg", kind: "chat_image", placeholder: "@upload0")])
        let flash = try await repo.enqueueImage(path: "/p/b.png", contentType: "image/png", isFlash: true, to: conv)
        #expect(flash.chatMessage(myImUid: "tb_1").content == .flashImage(FlashImagePayload(objectKey: "@upload0")))
    }

    @Test func severalPicturesStopAtNine() async throws {
        let (repo, store) = try sendQueue()
        let files = (0..<11).map { (path: "/p/\($0).jpg", contentType: "image/jpeg") }
        let record = try await repo.enqueueImages(files, to: conv)
        let keys = (0..<9).map { "@upload\($0)" }
        #expect(record.chatMessage(myImUid: "tb_1").content == .multiImage(MultiImagePayload(multiObjectKeys: keys)))
        #expect(try uploads(store, record.clientMsgID).map(\.placeholder) == keys)
        #expect(try uploads(store, record.clientMsgID).map(\.path) == (0..<9).map { "/p/\($0).jpg" })
        await #expect(throws: (any Error).self) { try await repo.enqueueImages([], to: conv) }
    }

    @Test func aVoiceMessage() async throws {
        let (repo, store) = try sendQueue()
        let record = try await repo.enqueueVoice(path: "/v/a.wav", contentType: "audio/wav", durationSec: 4, to: conv)
        #expect(record.chatMessage(myImUid: "tb_1").content == .audio(AudioPayload(objectKey: "@upload0", durationSec: 4)))
        #expect(try uploads(store, record.clientMsgID)
                == [.init(path: "/v/a.wav", contentType: "audio/wav", kind: "chat_audio", placeholder: "@upload0")])
    }
}

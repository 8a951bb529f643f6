import ChatCore
import ChatServer
@testable import ChatStore
import ChatViewModels
import Foundation
import Testing
@testable import ChatSync

/// A user's device: a login of its own (its session is the device), with
/// its own data folder, whose first pull uploads its keys as a login's does.
func makeDevice(_ server: String, _ account: String) async throws -> Session {
    let session = try await makeSession(server, account, fast: false, device: true)
    _ = try await session.sync.pull()
    return session
}

/// Secret chats through the client's own layers (send queue, sync, media
/// cache) against a real server in this process.
@Suite(.serialized) struct SecretSyncTests {
    static func text(_ s: Session, _ clientMsgID: String) throws -> String? {
        guard let m = try s.reader.message(clientMsgID: clientMsgID), m.contentType == ContentType.text else { return nil }
        return m.content
    }

    /// A device the sender has not heard of yet: the server says the devices
    /// changed, the send is sealed again with the same id, and the new device reads it.
    @Test func aDeviceTheSenderDidNotKnowOfReadsTheMessageToo() async throws {
        let server = try await startServer(dir: tempURL("secret-srv"))
        defer { Task { await server.stop() } }
        let mei = try await makeDevice(server.baseURL, "s_mei")
        let bob = try await makeDevice(server.baseURL, "s_bob")
        let conv = try await mei.startSecretChat(with: try await mei.user(named: "s_bob"))
        #expect(ConversationIDHelper.isSecret(conv))
        let first = try #require(try await mei.sendQueue.sendText("第一条", to: conv))
        #expect(await mei.sendQueue.drain() == .empty)
        _ = try await bob.sync.pull()
        #expect(try Self.text(bob, first.clientMsgID) == "第一条")

        // Bob signs in on a second device; Mei has not synced since, so her list of his devices is old.
        let bob2 = try await makeDevice(server.baseURL, "s_bob")
        let second = try #require(try await mei.sendQueue.sendText("第二条", to: conv))
        #expect(await mei.sendQueue.drain() == .empty)
        #expect(try mei.reader.message(clientMsgID: second.clientMsgID)?.seq != nil, "acknowledged once sealed again")
        _ = try await bob.sync.pull()
        _ = try await bob2.sync.pull()
        #expect(try Self.text(bob, second.clientMsgID) == "第二条")
        #expect(try Self.text(bob2, second.clientMsgID) == "第二条")
        // The new device was not there for the first: it says so once, and never shows ciphertext.
        let page = try bob2.reader.newestPage(conversationId: conv, limit: 100).messages
        #expect(page.contains { SecretNoticePayload(jsonText: $0.content)?.notice == .beforeThisDevice })
        #expect(try bob2.reader.message(clientMsgID: first.clientMsgID)?.content != first.content)
        // Mei's chat says Bob's safety number changed, once she hears of his new device.
        _ = try await mei.sync.pull()
        let meiPage = try mei.reader.newestPage(conversationId: conv, limit: 100).messages
        #expect(meiPage.contains { SecretNoticePayload(jsonText: $0.content)?.notice == .safetyChanged })
    }

    /// A flash image in a secret chat: encrypted on the server, opened only
    /// when viewed, never written to the receiver's cache.
    @Test func aFlashImageIsOpenedWhenViewedAndNeverCached() async throws {
        let server = try await startServer(dir: tempURL("secret-flash-srv"))
        defer { Task { await server.stop() } }
        let mei = try await makeDevice(server.baseURL, "f_mei")
        let bob = try await makeDevice(server.baseURL, "f_bob")
        let conv = try await mei.startSecretChat(with: try await mei.user(named: "f_bob"))
        let png = SampleMedia.png(width: 24, height: 16) { x, y in (UInt8(x * 10), UInt8(y * 15), 200) }
        let source = tempURL("flash").appendingPathComponent("閃.png")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: source)
        let flash = try OutgoingKind.flash.outgoing([source.path], writeUpload: mei.media.pendingUploadFile)
        let sent = try await mei.sendQueue.enqueue(flash.content, to: conv, uploads: flash.uploads)
        #expect(await mei.sendQueue.drain() == .empty)
        _ = try await bob.sync.pull()
        let m = try #require(try bob.reader.message(clientMsgID: sent.clientMsgID)?.chatMessage(myImUid: bob.credentials.imUid))
        let key = try #require(m.content.flashImage?.objectKey)
        #expect(bob.media.localURL(for: key) == nil, "a flash image is not fetched ahead")
        #expect(try await bob.media.fetchUncached(objectKey: key) == png, "opened when viewed")
        #expect(bob.media.localURL(for: key) == nil, "and still not on disk")
    }

    /// A disappearing picture: when the server's clock passes its time, every
    /// device drops the message, its search entry, its blob's key and the cached picture.
    @Test func aDisappearingMessageLeavesNothingBehind() async throws {
        let clock = ManualClock(ms: Int(Date().timeIntervalSince1970 * 1000))
        let server = try await startServer(dir: tempURL("secret-timer-srv")) { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let mei = try await makeDevice(server.baseURL, "t_mei")
        let bob = try await makeDevice(server.baseURL, "t_bob")
        let conv = try await mei.startSecretChat(with: try await mei.user(named: "t_bob"))
        try await mei.setSecretTimer(30, in: conv)
        #expect(try mei.secretTimer(in: conv) == 30)
        let text = try #require(try await mei.sendQueue.sendText("阅后即焚的话", to: conv))
        let png = SampleMedia.png(width: 8, height: 8) { x, y in (UInt8(x * 30), UInt8(y * 30), 90) }
        let source = tempURL("timer").appendingPathComponent("p.png")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: source)
        let image = try OutgoingKind.image.outgoing([source.path], writeUpload: mei.media.pendingUploadFile)
        let picture = try await mei.sendQueue.enqueue(image.content, to: conv, uploads: image.uploads)
        #expect(await mei.sendQueue.drain() == .empty)
        _ = try await bob.sync.pull()
        #expect(try Self.text(bob, text.clientMsgID) == "阅后即焚的话")
        #expect(try bob.store.secretTimer(conversationId: conv) == 30, "the timer reached the other side")
        let key = try #require(try bob.reader.message(clientMsgID: picture.clientMsgID)?.chatMessage(myImUid: bob.credentials.imUid)
            .content.image?.objectKey)
        #expect(bob.media.localURL(for: key) != nil, "the picture was opened into the cache")
        _ = try? bob.store.indexSearchBacklog()
        #expect(try !bob.store.search("阅后即焚").isEmpty)

        clock.advance(ms: 60_000)
        // The server's loop does this every second; here it is called once its clock passed the time.
        try server.service.expireDueSecretMessages()
        _ = try await bob.sync.pull()
        _ = try await mei.sync.pull()
        for s in [mei, bob] {
            #expect(try s.reader.message(clientMsgID: text.clientMsgID) == nil)
            #expect(try s.reader.message(clientMsgID: picture.clientMsgID) == nil)
            #expect(try s.store.search("阅后即焚").isEmpty, "no search entry left")
        }
        #expect(bob.media.localURL(for: key) == nil, "no cached picture left")
        #expect(try bob.store.secretBlobKey(objectKey: key) == nil, "no key of it left")
    }
}

import ChatCore
import Crypto
import Foundation
import Testing
@testable import ChatServer

@Suite(.serialized) struct FileTests {
    /// `chat_file` takes any bytes and is only ever served as a download;
    /// a `file` payload's name must be a base name; only the two people of
    /// the conversation can read it.
    @Test func filesAreAttachmentsForTheConversationOnly() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, _) = try await server.user()
        let page = Data("<html><script>alert(1)</script></html>".utf8)
        let up = try await a.upload(page, type: "text/html", kind: "chat_file")
        #expect(up.status == 201, "\(up.text)")
        let key = try up.decode(UploadResponse.self).objectKey
        #expect(key.hasPrefix("chat/file/") && key.hasSuffix(".bin"))
        let conv = conversationId(ua, ub)
        for bad in ["../../.bashrc", "a/b", "x\u{0}y", String(repeating: "n", count: 256)] {
            let r = try await a.sendCustom(conv, ["type": "file", "objectKey": key, "name": bad, "size": page.count])
            #expect(r.status == 400, "name \(bad.debugDescription): \(r.text)")
        }
        let sent = try await a.sendCustom(conv, ["type": "file", "objectKey": key, "name": "page.html", "size": page.count,
                                                 "mime": "text/html"])
        #expect(sent.status == 200, "\(sent.text)")
        #expect(try await c.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        let url = try #require(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key])
        let fetched = try await API(base: "", token: nil).get(url)
        #expect(fetched.body == page)
        #expect(fetched.header("Content-Type") == "application/octet-stream")
        #expect(fetched.header("Content-Disposition") == "attachment")
        #expect(fetched.header("X-Content-Type-Options") == "nosniff")
    }
}

@Suite(.serialized) struct MediaTests {
    @Test func uploadSignFetchAndChecks() async throws {
        let server = try await TestServer.start { $0.maxMediaBytes = 100_000 }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, _) = try await server.user()
        let png = SampleMedia.png(width: 8, height: 8) { x, y in (UInt8(x * 30), UInt8(y * 30), 0) }
        let up = try await a.upload(png, type: "image/png")
        #expect(up.status == 201)
        let key = try up.decode(UploadResponse.self).objectKey
        #expect(key.hasPrefix("chat/image/") && key.hasSuffix(".png"))
        #expect(try up.decode(UploadResponse.self).size == png.count)
        let file = server.dir.appendingPathComponent("media").appendingPathComponent(key).path
        #expect(FileManager.default.contents(atPath: file) == png)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600,
                "a user's file is readable by the server's user only")

        #expect(try await a.upload(Data("GIF89a-not-png".utf8), type: "image/png").errorCode == "unsupported_media")
        #expect(try await a.upload(png, type: "text/html").errorCode == "unsupported_media")
        #expect(try await a.upload(png, type: "audio/wav", kind: "chat_audio").errorCode == "unsupported_media")
        #expect(try await a.upload(SampleMedia.wav(seconds: 1), type: "audio/wav", kind: "chat_audio").status == 201)
        #expect(try await a.upload(Data(repeating: 0xFF, count: 200_000), type: "image/jpeg").errorCode == "too_large")
        #expect(try await a.upload(png, type: "image/png", kind: "chat_video").status == 400)

        // Only the uploader and members of a conversation it was sent in can sign it.
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        _ = try await a.sendCustom(conversationId(ua, ub), ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 8, "h": 8])
        let signed = try await b.post("/media/sign", SignRequest(objectKeys: [key, "chat/image/2026/01/01/x.png"])).decode(SignResponse.self)
        #expect(Array(signed.urls.keys) == [key])
        #expect(signed.expireAt > Int(Date().timeIntervalSince1970))
        #expect(try await c.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        // c cannot send someone else's key to gain access.
        let (_, uc) = (c, try await c.get("/user/me").decode(UserBasicInfo.self))
        #expect(try await c.sendCustom(ConversationIDHelper.make(myUid: uc.uid, targetUid: ua.uid),
                                       ["type": "image", "objectKey": key, "url": "", "expireAt": 0]).errorCode == "forbidden")

        let url = try #require(signed.urls[key])
        let fetched = try await API(base: "", token: nil).get(url)
        #expect(fetched.status == 200)
        #expect(fetched.body == png)
        #expect(fetched.header("Content-Type") == "image/png")

        // Tampered and expired signatures, and keys that try to escape.
        let tampered = url.replacingOccurrences(of: "sig=", with: "sig=0")
        #expect(try await API(base: "", token: nil).get(tampered).errorCode == "forbidden")
        let secret = server.running.service.objects.secretBytes
        let past = Int(Date().timeIntervalSince1970) - 10
        let mac = HMAC<SHA256>.authenticationCode(for: Data((key + "\n" + String(past)).utf8), using: SymmetricKey(data: secret))
        let sig = mac.map { String(format: "%02x", $0) }.joined()
        let expired = try await server.anonymous.get("/media/object/\(key)?exp=\(past)&sig=\(sig)")
        #expect(expired.status == 403)
        for bad in ["../secret.key", "chat/image/../../secret.key", "%2e%2e/secret.key", "chat/image/2026/11/22/..%2f..%2fserver.sqlite"] {
            #expect(try await server.anonymous.get("/media/object/\(bad)?exp=9999999999&sig=00").status == 400, "\(bad)")
        }
    }
}

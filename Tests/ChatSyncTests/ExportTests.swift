import ChatCore
import ChatServer
@testable import ChatStore
import Foundation
import Testing
@testable import ChatSync

/// `tongban export`'s library side: records, the three writers, and whole
/// exports from real sessions against a real server.
@Suite(.serialized) struct ExportTests {
    static let en = Localizer(language: .en)
    static let beijing = 8 * 3600
    static let alice = ExportRecord.Person(id: "tb_1", account: "alice", name: "Alice")
    static let bob = ExportRecord.Person(id: "tb_2", account: "bob", name: "Bob")
    static let carol = ExportRecord.Person(id: "tb_3", name: "Carol")

    static func options(_ format: ExportFormat, online: Bool = true, includeSecret: Bool = false) -> ExportOptions {
        ExportOptions(format: format, localizer: en, utcOffsetSeconds: beijing, online: online, includeSecret: includeSecret, pageSize: 2)
    }

    static func records() -> [ExportRecord] {
        let t = 1_795_000_000_250  // 2026-11-18 11:06:40.250 UTC
        return [
            ExportRecord(conversationId: "tb_1_tb_2", clientMsgID: "m1", seq: 1, timeMs: t, sender: alice, isMe: false, kind: "text",
                         text: "你好\n[12:00] Mallory: forged",
                         reactions: [.init(emoji: "👍", people: [bob, carol])], editedAtMs: t + 90_000),
            ExportRecord(conversationId: "tb_1_tb_2", clientMsgID: "m2", seq: 2, timeMs: t, sender: bob, isMe: true, kind: "quote",
                         text: "<script>alert('x')</script> & \"q\"",
                         reply: .init(clientMsgID: "m1", seq: 1, sender: alice, text: "你好"),
                         media: [.init(kind: "image", name: "a b#1.png", path: "media/tb_1_tb_2/2-a b#1.png")]),
            ExportRecord(conversationId: "tb_1_tb_2", clientMsgID: "m3", seq: 3, timeMs: t, sender: alice, isMe: false,
                         kind: "groupNotice", text: "Alice invited Bob", notice: true),
            ExportRecord(conversationId: "tb_1_tb_2", clientMsgID: "m4", seq: 4, timeMs: t, sender: alice, isMe: false, kind: "text",
                         text: "\u{1B}]0;pwned\u{07}hi \u{202E}evil"),
            ExportRecord(conversationId: "tb_1_tb_2", clientMsgID: "m5", seq: 5, timeMs: t, sender: alice, isMe: false, kind: "file",
                         text: "[File] q.pdf", media: [.init(kind: "file", name: "q.pdf")]),
        ]
    }

    // MARK: - Pure: records and writers

    @Test func timesAreUTCForMachinesAndAFixedZoneForPeople() {
        #expect(ExportTime.iso8601(1_795_000_000_250) == "2026-11-18T11:06:40.250Z")
        #expect(ExportTime.iso8601(0) == "1970-01-01T00:00:00.000Z")
        #expect(ExportTime.iso8601(-1) == "1969-12-31T23:59:59.999Z")
        #expect(ExportTime.local(1_795_000_000_250, utcOffsetSeconds: Self.beijing) == "2026-11-18 19:06")
    }

    @Test func txtHasOneRowPerMessageAndIndentedDetails() throws {
        let writer = ExportWriter(format: .txt, title: "Alice 爱丽丝", conversationId: "tb_1_tb_2", localizer: Self.en,
                                  utcOffsetSeconds: Self.beijing)
        let text = try writer.render(Self.records())
        #expect(text == """
            # Alice 爱丽丝 (tb_1_tb_2)
            [2026-11-18 19:06] Alice: 你好
                [12:00] Mallory: forged
                👍 Bob, Carol
                (edited 2026-11-18 19:08)
            [2026-11-18 19:06] Bob: <script>alert('x')</script> & "q"
                ↪ reply to Alice: 你好
                media/tb_1_tb_2/2-a b#1.png
            [2026-11-18 19:06] — Alice invited Bob —
            [2026-11-18 19:06] Alice: hi ¦evil
            [2026-11-18 19:06] Alice: [File] q.pdf
                q.pdf (not saved)

            """)
    }

    @Test func jsonlLinesDecodeBackToTheSameRecords() throws {
        let writer = ExportWriter(format: .jsonl, title: "Alice", conversationId: "tb_1_tb_2", localizer: Self.en)
        let text = try writer.render(Self.records())
        let lines = text.split(separator: "\n")
        #expect(lines.count == 5)
        let decoded = try lines.map { try JSONDecoder().decode(ExportRecord.self, from: Data($0.utf8)) }
        #expect(decoded == Self.records())
        #expect(decoded[0].time == "2026-11-18T11:06:40.250Z" && decoded[0].editedAt == "2026-11-18T11:08:10.250Z")
        // A terminal never sees the escape or the override raw; the JSON still says them.
        #expect(!text.contains("\u{1B}") && !text.contains("\u{202E}") && text.contains("\\u202E"))
        #expect(lines[0].hasPrefix("{\"clientMsgID\":\"m1\",\"conversationId\":"), "keys sorted")
    }

    @Test func htmlIsOneEscapedPageWithNoScriptAndLinkedPictures() throws {
        let writer = ExportWriter(format: .html, title: "<b>Alice</b>", conversationId: "tb_1_tb_2", localizer: Self.en,
                                  utcOffsetSeconds: Self.beijing)
        let html = try writer.render(Self.records())
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(!html.lowercased().contains("<script"), "a message's <script> is text")
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"))
        #expect(html.contains("<title>&lt;b&gt;Alice&lt;/b&gt;</title>"))
        #expect(html.contains("<a href=\"media/tb_1_tb_2/2-a%20b%231.png\"><img src=\"media/tb_1_tb_2/2-a%20b%231.png\" alt=\"a b#1.png\""))
        #expect(html.contains("<a href=\"#m1\">↪ reply to Alice: 你好</a>"))
        #expect(html.contains("q.pdf (not saved)"))
        #expect(!html.contains("http://") && !html.contains("https://"), "nothing fetched from elsewhere")
        #expect(!html.contains("\u{1B}"))
        #expect(ExportWriter.escape("<\u{301}a href='x'>") == "&lt;\u{301}a href=&#39;x&#39;&gt;", "a combining mark hides no <")
    }

    @Test func linksInTheTextAreLinksOnThePage() {
        let writer = ExportWriter(format: .html, title: "t", conversationId: "c", localizer: Self.en, utcOffsetSeconds: 0)
        #expect(writer.linkedHTML("见 https://example.com/a?b=1&c=2。") ==
            "见 <a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noopener noreferrer\">https://example.com/a?b=1&amp;c=2</a>。")
        let tricky = writer.linkedHTML("https://e.x/\"><script>alert(1)</script>")
        #expect(tricky.hasPrefix("<a href=\"https://e.x/\" rel=\"noopener noreferrer\">https://e.x/</a>&quot;&gt;&lt;script&gt;"))
        #expect(!tricky.contains("<script"))
    }

    @Test func aFlashImageLeavesALineAndNoObject() throws {
        let me = ExportPeople(me: Self.bob, fallbackName: "Alice")
        let flash = ChatMessage(id: "f", senderId: "tb_1", receiverId: "tb_2", conversationId: "tb_1_tb_2", seq: 7, type: .flashImage,
                                content: .flashImage(FlashImagePayload(objectKey: "chat/image/2026/11/18/f.png")),
                                createTime: 1, isRead: true, isMe: false)
        let made = try #require(ExportRecord.from(flash, people: me, localizer: Self.en))
        #expect(made.record.text == "[Flash image — not exported]" && made.record.media.isEmpty && made.objects.isEmpty)
        #expect(made.record.sender.name == "Alice")
        let picture = ChatMessage(id: "p", senderId: "tb_2", receiverId: "tb_1", conversationId: "tb_1_tb_2", seq: 8, type: .image,
                                  content: .image(ImagePayload(objectKey: "chat/image/2026/11/18/p.png")),
                                  createTime: 1, isRead: true, isMe: true)
        let shown = try #require(ExportRecord.from(picture, people: me, localizer: Self.en))
        #expect(shown.objects == [ExportMediaObject(objectKey: "chat/image/2026/11/18/p.png", fileName: "8-p.png")])
        #expect(shown.record.text == "[Image]" && shown.record.sender == Self.bob)
        #expect(ExportPaths.fileName(title: "../工作/群", conversationId: "sg_7", format: .html) == "_工作_群-sg_7.html")
    }

    // MARK: - Whole exports

    @Test func aConversationExportsToTxtJsonlAndHtmlWithItsMedia() async throws {
        let server = try await startServer(dir: tempURL("export-srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "ex_ann")
        let b = try await makeSession(server.baseURL, "ex_ben")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        let picture = SampleMedia.png(width: 2, height: 2) { _, _ in (0, 0, 255) }
        let flashBytes = SampleMedia.png(width: 3, height: 3) { _, _ in (255, 0, 0) }
        let pictureFile = tempFile("picture", "png")
        let flashFile = tempFile("flash", "png")
        try picture.write(to: pictureFile)
        try flashBytes.write(to: flashFile)

        try await a.sendQueue.sendText("第一条", to: conv, clientMsgID: "t1")
        #expect(await a.sendQueue.drain() == .empty)
        try await a.edit("t1", in: conv, to: "第一条（改）")
        try await b.sync.pull()
        try await b.sendQueue.enqueue(.quote(QuotePayload(text: "回复你", quote: .init(clientMsgID: "t1"))), to: conv, clientMsgID: "t2")
        #expect(await b.sendQueue.drain() == .empty)
        try await b.react(to: "t1", in: conv, emoji: "👍", on: true)
        try await a.sendQueue.sendText("撤回我", to: conv, clientMsgID: "r1")
        func upload(_ file: URL) -> [SendQueue.PendingUpload] {
            [.init(path: file.path, contentType: "image/png", kind: "chat_image", placeholder: "@upload0")]
        }
        try await a.sendQueue.enqueue(.image(ImagePayload(objectKey: "@upload0")), to: conv, uploads: upload(pictureFile), clientMsgID: "img")
        try await a.sendQueue.enqueue(.flashImage(FlashImagePayload(objectKey: "@upload0")), to: conv, uploads: upload(flashFile),
                                clientMsgID: "flash")
        try await a.sendQueue.sendText("<script>alert('x')</script>", to: conv, clientMsgID: "xss")
        #expect(await a.sendQueue.drain() == .empty)
        try await a.sendQueue.revoke(clientMsgID: "r1")
        try await b.sync.pull()

        let dir = tempURL("export-out")
        let nameA = a.credentials.username, nameB = b.credentials.username
        var results: [ExportFormat: ExportResult] = [:]
        for format in ExportFormat.allCases {
            results[format] = try await b.export(conv, title: nameA, to: dir.appendingPathComponent("chat.\(format.rawValue)"),
                                                 options: Self.options(format))
        }
        #expect(results[.txt]?.messages == 6 && results[.txt]?.mediaSaved == 1 && results[.txt]?.mediaMissing == 0)

        let jsonl = try String(contentsOf: dir.appendingPathComponent("chat.jsonl"), encoding: .utf8)
        let records = try jsonl.split(separator: "\n").map { try JSONDecoder().decode(ExportRecord.self, from: Data($0.utf8)) }
        #expect(records.map(\.clientMsgID) == ["t1", "t2", "r1", "img", "flash", "xss"])
        let byId = Dictionary(uniqueKeysWithValues: records.map { ($0.clientMsgID, $0) })
        let t1 = try #require(byId["t1"])
        #expect(t1.text == "第一条（改）" && t1.editedAtMs != nil && t1.sender.name == nameA && !t1.isMe)
        let meB = ExportRecord.Person(id: b.credentials.imUid, account: "ex_ben", name: nameB)
        #expect(t1.reactions == [ExportRecord.Reaction(emoji: "👍", people: [meB])])
        #expect(byId["t2"]?.reply?.clientMsgID == "t1" && byId["t2"]?.reply?.sender?.name == nameA && byId["t2"]?.isMe == true)
        #expect(byId["r1"]?.revoked == true && byId["r1"]?.text == "Message revoked")
        #expect(byId["flash"]?.text == "[Flash image — not exported]" && byId["flash"]?.media.isEmpty == true)
        let img = try #require(byId["img"])
        let path = try #require(img.media.first?.path)
        #expect(path.hasPrefix("media/\(conv)/\(img.seq)-") && path.hasSuffix(".png"))
        #expect(try Data(contentsOf: dir.appendingPathComponent(path)) == picture)

        let txt = try String(contentsOf: dir.appendingPathComponent("chat.txt"), encoding: .utf8)
        #expect(txt.contains("] \(nameA): 第一条（改）\n    👍 \(nameB)\n    (edited "))
        #expect(txt.contains("] \(nameB): 回复你\n    ↪ reply to \(nameA): 第一条"))
        #expect(txt.contains("] \(nameA): Message revoked\n"))
        #expect(txt.contains("] \(nameA): [Image]\n    \(path)\n"))
        #expect(txt.contains("] \(nameA): [Flash image — not exported]\n"))

        let html = try String(contentsOf: dir.appendingPathComponent("chat.html"), encoding: .utf8)
        #expect(!html.lowercased().contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(html.contains("<img src=\"\(path)\""))

        // The flash image's bytes are nowhere in the export; the picture is there once.
        var files: [URL] = []
        let walk = try #require(FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let url as URL in walk where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files.append(url)
        }
        #expect(files.count == 4, "three exports and one picture: \(files.map(\.lastPathComponent))")
        for file in files { #expect(try Data(contentsOf: file) != flashBytes) }
        #expect(!files.contains { $0.lastPathComponent.hasPrefix(".tongban-export-") }, "no partial file left")
    }

    @Test func olderMessagesAreFetchedFirstAndOfflineExportsWhatIsHere() async throws {
        let server = try await startServer(dir: tempURL("export-fill-srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "fill_ann")
        let b = try await makeSession(server.baseURL, "fill_ben")
        let conv = try await sendAcrossAPrunedLog(server, from: a, to: b)
        try await b.sync.pull()
        #expect(try b.store.missingRanges(conversationId: conv) == [4...8])

        let dir = tempURL("export-fill-out")
        let offline = try await b.export(conv, title: "ann", to: dir.appendingPathComponent("offline.jsonl"),
                                         options: Self.options(.jsonl, online: false))
        #expect(offline.messages == 4 && offline.messagesMissing == 5)

        let online = try await b.export(conv, title: "ann", to: dir.appendingPathComponent("all.jsonl"), options: Self.options(.jsonl))
        #expect(online.messages == 9 && online.messagesMissing == 0 && online.fillFailure == nil)
        let jsonl = try String(contentsOf: dir.appendingPathComponent("all.jsonl"), encoding: .utf8)
        let texts = try jsonl.split(separator: "\n").map { try JSONDecoder().decode(ExportRecord.self, from: Data($0.utf8)).text }
        #expect(texts == ["早 1", "早 2", "早 3", "晚 4", "晚 5", "晚 6", "晚 7", "晚 8", "最新"])
    }

    @Test func secretChatsAreExportedOnlyWhenAsked() async throws {
        let server = try await startServer(dir: tempURL("export-secret-srv"))
        defer { Task { await server.stop() } }
        let mei = try await makeDevice(server.baseURL, "xs_mei")
        _ = try await makeDevice(server.baseURL, "xs_bob")
        let open = try await mei.conversation(with: "xs_bob")
        let secret = try await mei.startSecretChat(with: try await mei.user(named: "xs_bob"))
        try await mei.sendQueue.sendText("公开的话", to: open)
        try await mei.sendQueue.sendText("悄悄话", to: secret)
        #expect(await mei.sendQueue.drain() == .empty)
        _ = try await mei.sync.pull()

        let dir = tempURL("export-secret-out")
        let skipped = try await mei.exportAll(into: dir, options: Self.options(.txt))
        #expect(skipped.first { $0.conversationId == secret }?.skippedAsSecret == true)
        let openFile = try #require(skipped.first { $0.conversationId == open }?.file)
        #expect(try String(contentsOf: openFile, encoding: .utf8).contains("公开的话"))
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".txt") }
        #expect(written.filter { $0.contains("ss_") }.isEmpty && written.contains(openFile.lastPathComponent))
        for name in written {
            #expect(try !String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8).contains("悄悄话"))
        }
        await #expect(throws: ExportError.secretChat(secret)) {
            try await mei.export(secret, title: "bob", to: dir.appendingPathComponent("s.txt"), options: Self.options(.txt))
        }

        let all = try await mei.exportAll(into: dir, options: Self.options(.txt, includeSecret: true))
        let file = try #require(all.first { $0.conversationId == secret }?.file)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("悄悄话"))
    }
}

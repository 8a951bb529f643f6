import Foundation
import Testing
@testable import ChatCore

@Suite struct FileKindTests {
    @Test func decodesEncodesAndSummarises() throws {
        let json = #"{"type":"file","objectKey":"chat/file/2026/11/25/k.bin","url":"u","expireAt":9,"name":"报告 v2.pdf","size":1234567,"mime":"application/pdf"}"#
        let (type, content) = IMMessageMapper.decode(contentType: ContentType.custom, content: json)
        #expect(type == .file)
        guard let p = content.file else { Issue.record("not a file: \(content)"); return }
        #expect(p.name == "报告 v2.pdf" && p.size == 1_234_567 && p.mime == "application/pdf")
        let wire = try #require(IMMessageMapper.wireContent(for: content))
        #expect(IMMessageMapper.decode(contentType: wire.contentType, content: wire.content).1 == content)
        let m = IMMessageMapper.map(WireMessage(serverMsgID: "s", clientMsgID: "c", conversationId: "si_tb_1_tb_2", seq: 1,
                                                sendID: "tb_2", recvID: "tb_1", contentType: 110, content: json, sendTime: 0),
                                    currentUID: "tb_1")
        #expect(MessageKinds.summary(of: m, localizer: Localizer(language: .zhHans)) == "[文件] 报告 v2.pdf")
        #expect(MessageKinds.objectKeys(in: content) == ["chat/file/2026/11/25/k.bin"])
    }

    /// PROTOCOL.md: a base name, no NUL, at most 255 bytes; a payload that
    /// breaks it is not a file (the server refuses it; a client shows it as unknown).
    @Test func namesOutsideTheProtocolAreNotFiles() {
        for bad in ["../../.bashrc", "a/b", "x\u{0}y", String(repeating: "长", count: 86), "..", ".", ""] {
            let payload = JSONObject(fields: ["type": .string("file"), "objectKey": .string("k"), "name": .string(bad),
                                              "size": .number(1)]).jsonText()
            let (_, content) = IMMessageMapper.decode(contentType: ContentType.custom, content: payload)
            #expect(content.unknown != nil, "\(bad.debugDescription) was accepted")
        }
    }

    /// Every media kind names its objects, so the server checks reads for all of them.
    @Test func everyMediaKindDeclaresItsObjects() {
        #expect(MessageKinds.objectKeys(in: .image(ImagePayload(objectKey: "i"))) == ["i"])
        #expect(MessageKinds.objectKeys(in: .flashImage(FlashImagePayload(objectKey: "f"))) == ["f"])
        #expect(MessageKinds.objectKeys(in: .audio(AudioPayload(objectKey: "a", durationSec: 1))) == ["a"])
        #expect(MessageKinds.objectKeys(in: .multiImage(MultiImagePayload(multiObjectKeys: ["m1", "m2"]))) == ["m1", "m2"])
        #expect(MessageKinds.objectKeys(in: .file(FilePayload(objectKey: "d", name: "n", size: 0))) == ["d"])
        #expect(MessageKinds.objectKeys(in: .text("chat/image/x")).isEmpty)
    }
}

@Suite struct SafeFileNameTests {
    @Test func networkNamesBecomeSafeBaseNames() {
        #expect(SafeFileName.base("../../.bashrc") == "bashrc")
        #expect(SafeFileName.base("a/b") == "b")
        #expect(SafeFileName.base("..\\..\\evil.exe") == "evil.exe")
        #expect(SafeFileName.base("x\u{0}y.txt") == "xy.txt")
        #expect(SafeFileName.base("bell\u{7}\u{1B}[31mred\u{9B}.txt") == "bell[31mred.txt")
        #expect(SafeFileName.base("invoice\u{202E}fdp.exe") == "invoicefdp.exe", "a bidi override cannot disguise the extension")
        #expect(SafeFileName.base("..") == "file")
        #expect(SafeFileName.base("/") == "file")
        #expect(SafeFileName.base("  . ") == "file")
        #expect(SafeFileName.base("照片 2026.jpg") == "照片 2026.jpg")
        #expect(SafeFileName.base(".\u{301}hidden") == "\u{301}hidden", "a combining mark cannot keep a leading dot")
        #expect(SafeFileName.base("a:b*c?.txt") == "a_b_c_.txt")
        let long = SafeFileName.base(String(repeating: "长", count: 100) + ".tar.gz")
        #expect(long.utf8.count <= 255 && long.hasSuffix("长.gz"), "cut on a character, the extension kept")
    }

    @Test func savingNeverOverwrites() {
        let dir = URL(fileURLWithPath: "/downloads")
        let taken: Set<String> = ["/downloads/a.txt", "/downloads/a (1).txt", "/downloads/README"]
        #expect(SafeFileName.unused("a.txt", in: dir, exists: taken.contains).path == "/downloads/a (2).txt")
        #expect(SafeFileName.unused("README", in: dir, exists: taken.contains).path == "/downloads/README (1)")
        #expect(SafeFileName.unused("../a.txt", in: dir, exists: { _ in false }).path == "/downloads/a.txt")
    }

    @Test func sizesReadAsPeopleSayThem() {
        #expect(FileSizeText.format(0) == "0 B")
        #expect(FileSizeText.format(999) == "999 B")
        #expect(FileSizeText.format(1_234) == "1.2 KB")
        #expect(FileSizeText.format(1_200_000) == "1.2 MB")
        #expect(FileSizeText.format(999_990) == "1.0 MB")
        #expect(FileSizeText.format(3_000_000_000) == "3.0 GB")
    }
}

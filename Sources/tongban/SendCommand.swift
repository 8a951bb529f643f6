import ArgumentParser
import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import Foundation

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a text message, an image, a flash image, several images, a voice message or a file.")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid (offline too, for anyone chatted with before).") var to: String
    @Option(help: "An image file (JPEG, PNG, GIF, WebP); over 200 KB it is re-encoded as JPEG.") var image: String?
    @Option(help: "An image file sent as a flash image (viewable once).") var flash: String?
    @Option(parsing: .upToNextOption, help: "Up to 9 image files in one message.") var multi: [String] = []
    @Option(help: "A voice file (WAV, MP3, OGG, M4A).") var voice: String?
    @Option(help: "Any file, sent as is (up to the server's media limit).") var file: String?
    @Flag(help: "When the server cannot be reached, leave the message in the outbox (exit 0); the next tongban command sends it.")
    var queue = false
    @Argument(help: "The text; read from standard input when omitted and no media is given.") var text: [String] = []

    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: to)
        let record: MessageRecord
        do {
            record = try await enqueue(session, conv)
        } catch let e as MediaProbe.Failure {
            throw CLIError(e.description)
        } catch let e as ImageCodec.Failure {
            throw CLIError(e.description)
        }
        switch await session.repository.drain(retryTransient: false) {
        case .empty:
            let m = try session.store.message(clientMsgID: record.clientMsgID)
            if let m, m.status == MessageStatus.failed.rawValue {
                throw CLIError(L.string("cli.failed", ["reason": m.errorReason ?? ""]))
            }
            out(L.string("cli.sent", ["seq": String(m?.seq ?? 0)]))
        case .waiting(let why):
            if queue {
                out(L.string("cli.queued", ["reason": why]))
            } else {
                try session.store.markFailed(clientMsgID: record.clientMsgID, reason: why)
                throw CLIError(L.string("cli.failed", ["reason": why]))
            }
        }
    }

    func prepared(_ session: Session, _ path: String) throws -> (ChatRepository.PendingUpload, ImageCodec.Prepared) {
        let p = try ImageCodec.prepareFile(path: path)
        let file = try session.media.pendingUploadFile(p.data, ext: MediaType.fileExtension(for: p.contentType))
        return (ChatRepository.PendingUpload(path: file.path, contentType: p.contentType, kind: "chat_image", placeholder: "@upload0"), p)
    }

    func enqueue(_ session: Session, _ conv: String) async throws -> MessageRecord {
        let repo = session.repository
        if let path = image ?? flash {
            let (upload, p) = try prepared(session, path)
            let content: MessageContent = image != nil
                ? .image(ImagePayload(objectKey: "@upload0", w: Double(p.width), h: Double(p.height)))
                : .flashImage(FlashImagePayload(objectKey: "@upload0"))
            return try await repo.enqueue(content, to: conv, uploads: [upload])
        }
        if !multi.isEmpty {
            guard multi.count <= 9 else { throw CLIError("--multi takes at most 9 images") }
            var uploads: [ChatRepository.PendingUpload] = []
            for (i, path) in multi.enumerated() {
                var (u, _) = try prepared(session, path)
                u.placeholder = "@upload\(i)"
                uploads.append(u)
            }
            return try await repo.enqueue(.multiImage(MultiImagePayload(multiObjectKeys: uploads.map(\.placeholder))), to: conv, uploads: uploads)
        }
        if let file {
            guard FileManager.default.isReadableFile(atPath: file) else { throw CLIError(L.string("ui.fileUnreadable", ["path": file])) }
            return try await repo.enqueueFile(at: file, to: conv)
        }
        if let voice {
            let probe = try MediaProbe.probe(path: voice)
            guard probe.kind == "chat_audio" else { throw MediaProbe.Failure.unsupported(voice) }
            return try await repo.enqueue(.audio(AudioPayload(objectKey: "@upload0", durationSec: probe.durationSec ?? 0)), to: conv,
                                          uploads: [.init(path: voice, contentType: probe.contentType, kind: "chat_audio", placeholder: "@upload0")])
        }
        let body = text.isEmpty ? (readLine(strippingNewline: false) ?? "") : text.joined(separator: " ")
        guard let record = try await repo.sendText(body, to: conv) else { throw CLIError("nothing to send: the text is empty") }
        return record
    }
}

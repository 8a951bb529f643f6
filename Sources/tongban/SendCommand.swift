import ArgumentParser
import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import ChatViewModels
import Foundation

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a text message, an image, a flash image, several images, a voice message or a file.")
    @OptionGroup var common: Common
    @Option(help: "The peer (account, display name or uid; offline too, for anyone chatted with before) or a group (name, unique name or sg_ id).") var to: String
    @Option(help: "Mention a member (account, display name or uid); repeat for more. The text gets \"@Name \" in front unless it already names them.")
    var mention: [String] = []
    @Flag(name: .customLong("mention-all"), help: "Mention everyone in the group (owner only).") var mentionAll = false
    @Option(name: .customLong("reply-to"), help: "clientMsgID of a message of the conversation this text replies to (quoting it).")
    var replyTo: String?
    @Option(help: "An image file (JPEG, PNG, GIF, WebP); over 200 KB it is re-encoded as JPEG.") var image: String?
    @Option(help: "An image file sent as a flash image (viewable once).") var flash: String?
    @Option(parsing: .upToNextOption, help: "Up to 9 image files in one message.") var multi: [String] = []
    @Option(help: "A voice file (WAV, MP3, OGG, M4A).") var voice: String?
    @Option(help: "Any file, sent as is (up to the server's media limit).") var file: String?
    @Flag(help: "When the server cannot be reached, leave the message in the outbox (exit 0); the next tongban command sends it. Without it, a message that could not be sent is taken back (exit 1), except when the server may have it already: then it stays queued (exit 75).")
    var queue = false
    @Flag(help: "Into the secret (end-to-end encrypted) chat with --to, started if new.") var secret = false
    @Argument(help: "The text; read from standard input when omitted and no media is given.") var text: [String] = []

    func run() async throws {
        let session = try await common.session()
        let conv = secret ? try await secretConversation(session, with: to) : try await conversationId(session, with: to)
        let record: StoredMessage
        do {
            record = try await enqueue(session, conv)
        } catch let e as MediaProbe.Failure {
            throw CLIError(e.description)
        } catch let e as ImageCodec.Failure {
            throw CLIError(e.description)
        }
        let repo = session.sendQueue
        _ = await repo.drain()
        switch try await repo.fate(of: record.clientMsgID) {
        case .sent(let seq):
            out(L.string("cli.sent", ["seq": String(seq)]))
        case .gone:
            throw CLIError(L.string("cli.failed", ["reason": "the message is no longer in the store"]))
        case .failed(let reason):
            // Reported here and now: nothing is left behind to hold the chat.
            try await settleAsFailed(repo, record, failedText(reason))
        case .held:
            if queue {
                out(L.string("cli.held"))
            } else {
                try await settleAsFailed(repo, record, L.string("cli.failed", ["reason": L.string("cli.heldReason")]))
            }
        case .queued(let reason):
            let why = MessageStatus.words(forReason: reason, L)
            if queue {
                out(L.string("cli.queued", ["reason": why]))
            } else {
                try await settleAsFailed(repo, record, L.string("cli.failed", ["reason": why + L.string("cli.notQueued")]))
            }
        }
    }

    /// Takes the message back and reports the failure. Unless another
    /// process delivered it meanwhile (then: sent), or an attempt, from any
    /// process, may have reached the server: then it stays queued, to be
    /// resent with the same id (deduped), and the outcome is unknown (75).
    func settleAsFailed(_ repo: SendQueue, _ record: StoredMessage, _ message: String) async throws {
        switch try await repo.takeBack(clientMsgID: record.clientMsgID) {
        case .sent(let seq):
            out(L.string("cli.sent", ["seq": String(seq)]))
        case .gone:
            throw CLIError(message)
        case .failed(let reason), .queued(let reason):
            errOut(L.string("cli.unknown", ["reason": MessageStatus.words(forReason: reason, L)]))
            throw ExitCode(75)
        case .held:
            errOut(L.string("cli.unknown", ["reason": L.string("cli.heldReason")]))
            throw ExitCode(75)
        }
    }

    func enqueue(_ session: Session, _ conv: String) async throws -> StoredMessage {
        let repo = session.sendQueue
        let media = session.media
        // The files' options, each a kind of `OutgoingKinds` (the full-screen client's `/image`, `/file`, …).
        let files: [(String, [String])] = [("image", image.map { [$0] } ?? []), ("flash", flash.map { [$0] } ?? []),
                                           ("multi", multi), ("voice", voice.map { [$0] } ?? []), ("file", file.map { [$0] } ?? [])]
        if let (name, paths) = files.first(where: { !$0.1.isEmpty }), let kind = OutgoingKinds.named(name) {
            let o: Outgoing
            do { o = try kind.outgoing(paths, writeUpload: media.pendingUploadFile) } catch let f as OutgoingFailure {
                throw CLIError(f.words(L))
            }
            return try await repo.enqueue(o.content, to: conv, uploads: o.uploads)
        }
        let body = text.isEmpty ? (readLine(strippingNewline: false) ?? "") : text.joined(separator: " ")
        if let replyTo {
            // The quote as the store has it; the server fills it in again from its own copy.
            let trimmed = body.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw CLIError("nothing to send: the text is empty") }
            guard let target = try session.reader.message(clientMsgID: replyTo), target.conversationId == conv else {
                throw CLIError(L.string("cli.noSuchMessage", ["id": TerminalSanitizer.oneLine(replyTo)]))
            }
            var reply = QuotePayload(text: trimmed, quote: .init(clientMsgID: replyTo, seq: target.seq, sendID: target.sendID,
                                                                 contentType: target.contentType))
            if !mention.isEmpty || mentionAll {
                let mentioned = try await mentionPayload(session, conv, trimmed)
                (reply.text, reply.atUserIDs, reply.atAll) = (mentioned.text, mentioned.atUserIDs, mentioned.atAll)
            }
            return try await repo.enqueue(.quote(reply), to: conv)
        }
        if !mention.isEmpty || mentionAll {
            let mentioned = try await mentionPayload(session, conv, body)
            return try await repo.enqueue(.mention(mentioned), to: conv)
        }
        guard let record = try await repo.sendText(body, to: conv) else { throw CLIError("nothing to send: the text is empty") }
        return record
    }

    /// The text with `@Name` for each mentioned member, and their ids.
    func mentionPayload(_ session: Session, _ conv: String, _ body: String) async throws -> MentionPayload {
        var text = body.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CLIError("nothing to send: the text is empty") }
        var ids: [String] = []
        var prefix = ""
        var members: [GroupMember] = []
        if let gid = ConversationIDHelper.groupId(conv) { members = try await session.members(groupId: gid) }
        for name in mention {
            let uid: Int
            let display: String
            if let m = members.first(where: { $0.isNamed(name) }) {
                uid = m.uid; display = m.username
            } else {
                let u = try await server(session) { try await session.user(named: name) }
                uid = u.uid; display = u.username
            }
            ids.append(ConversationIDHelper.imUid(uid))
            if !text.contains("@" + display) { prefix += "@" + display + " " }
        }
        if mentionAll && !text.contains("@") { prefix = "@" + L.string("mention.all") + " " + prefix }
        text = prefix + text
        return MentionPayload(text: text, atUserIDs: ids, atAll: mentionAll)
    }
}

/// A refused send in the user's words: the receiver's refusal (`blocked`)
/// has its own, a spent upload quota says so, the rest say the server's reason.
func failedText(_ reason: String) -> String {
    reason == MessageStatus.blockedReason
        ? L.string("send.blocked") : L.string("cli.failed", ["reason": MessageStatus.words(forReason: reason, L)])
}

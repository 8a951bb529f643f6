import ArgumentParser
import ChatCore
import ChatMedia
import ChatServer
import ChatStore
import ChatSync
import Foundation
import Logging
import TongbanTUI

@main
struct Tongban: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tongban",
        abstract: "Tongban Terminal: chat from a terminal.",
        subcommands: [Start.self, Login.self, Register.self, Rename.self, Logout.self, List.self, Send.self, History.self, Sync.self,
                      Pin.self, Unpin.self, Delete.self, Revoke.self, Demo.self, DecodeImage.self],
        defaultSubcommand: Start.self)

    /// A closed pipe (`tongban ls | head`) must end the output, not the process.
    static func main() async {
        _ = launchedAt
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Error texts carry what a server said: sanitised like any output.
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if !text.isEmpty {
                let handle = code == .success ? FileHandle.standardOutput : FileHandle.standardError
                try? handle.write(contentsOf: Data((TerminalSanitizer.sanitize(text, keepNewlines: true) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }
}

let L = Localizer.current
/// Process start, for the bench's exec-to-first-frame figure.
let launchedAt = DispatchTime.now().uptimeNanoseconds

/// Options every command shares.
struct Common: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Where the login and the message stores live (default: $TONGBAN_DATA_DIR, else $XDG_DATA_HOME/tongban).")
    var dataDir: String?

    var paths: StorePaths { StorePaths.resolve(explicitDataDir: dataDir, environment: ProcessInfo.processInfo.environment) }

    /// The saved session; whatever an earlier `send --queue` left in the
    /// outbox is sent first (quietly: offline it simply stays queued).
    func session() async throws -> Session {
        guard let creds = try Session.saved(paths: paths) else { throw CLIError(L.string("cli.notLoggedIn")) }
        let session = try Session(credentials: creds, paths: paths)
        if !(try session.store.outbox().isEmpty) { _ = await session.repository.drain(retryTransient: false) }
        return session
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func out(_ s: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((TerminalSanitizer.sanitize(s, keepNewlines: true) + "\n").utf8))
}

/// A line on standard error, sanitised like `out`.
func errOut(_ s: String) {
    try? FileHandle.standardError.write(contentsOf: Data((TerminalSanitizer.sanitize(s, keepNewlines: true) + "\n").utf8))
}

/// One line of a list: a peer's name or a preview cannot start a new row.
func oneLine(_ s: String) -> String {
    TerminalSanitizer.sanitize(s.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " "))
}

/// Message text in `history`: its own line breaks are kept, indented, so a
/// message cannot forge a `[time] name:` row of its own.
func indentedBody(_ s: String) -> String {
    TerminalSanitizer.sanitize(s, keepNewlines: true).replacingOccurrences(of: "\n", with: "\n    ")
}

/// JSON for a terminal: JSONEncoder escapes only U+0000–U+001F, so DEL, the
/// C1 controls (U+009B is CSI) and bidi/format characters inside strings are
/// written as `\uXXXX` too. Still the same JSON.
func jsonOut(_ data: Data) {
    var text = ""
    for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
        let v = scalar.value
        if (0x7F...0x9F).contains(v) || scalar.properties.generalCategory == .format
            || (0x2028...0x2029).contains(v) {
            text += String(format: "\\u%04X", v)
        } else {
            text.unicodeScalars.append(scalar)
        }
    }
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}

/// Runs a network step; when the server is down, says so once and goes on offline.
func online<T>(_ session: Session, _ body: () async throws -> T) async throws -> T? {
    do {
        return try await body()
    } catch let e as APIError {
        switch e {
        case .unreachable(let why), .badResponse(let why):
            errOut(L.string("cli.unreachable", ["server": session.credentials.server, "reason": why]))
            return nil
        case .timeout:
            errOut(L.string("cli.unreachable", ["server": session.credentials.server, "reason": e.description]))
            return nil
        case .server:
            throw CLIError(e.description)
        }
    }
}

/// Sends what is queued, then pulls; quiet when offline.
func syncNow(_ session: Session) async throws -> AppliedChanges? {
    _ = await session.repository.drain(retryTransient: false)
    return try await online(session) { try await session.sync.pull() }
}

/// A peer by uid, account or display name: offline from the store, else
/// found (and the chat started) on the server.
func conversationId(_ session: Session, with peer: String) async throws -> String {
    if let local = try session.localConversation(with: peer) { return local }
    guard let id = try await online(session, { try await session.conversation(with: peer) }) else {
        throw CLIError("no local conversation with \(peer)")
    }
    return id
}

/// The list's time column, the same as the full-screen client's.
func timeLabel(_ ms: Int) -> String { ChatApp.timeLabel(ms, L) }

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "The full-screen client (the default command).")
    @OptionGroup var common: Common
    @Flag(help: "Start the demo server in this process on a free port and log in as me.") var demo = false
    @Option(help: "Use this server; without a saved login for it, asks to log in or create an account first.") var server: String?

    func run() async throws {
        if demo {
            try await runDemo()
            return
        }
        if let server, (try Session.saved(paths: common.paths))?.server != APIClient(baseURL: server).baseURL {
            // No login for this server yet: log in or create an account first.
            guard await SignInForm(server: server, paths: common.paths, localizer: L).run() != nil else {
                throw ExitCode.failure
            }
        }
        let session = try await common.session()
        try await TUIRunner.run(session: session, localizer: L, launchedAt: launchedAt, pictureDecoder: DecodeImage.decoder)
    }

    /// `make run`: the demo server in-process, logged in as `me`, with its
    /// own data folders so a real login is never touched.
    func runDemo() async throws {
        let root = common.paths.dataDirectory.appendingPathComponent("demo", isDirectory: true)
        try StorePaths.makePrivateDirectory(root)
        var config = ServerConfig()
        config.port = 0
        config.demo = true
        config.dataDir = root.appendingPathComponent("server").path
        var logger = Logger(label: "tongban-demo-server")
        logger.logLevel = .critical  // ncurses owns the screen
        config.logger = logger
        let server = try await ChatServerApp.start(config: config)
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("client"),
                               cacheDirectory: common.paths.cacheDirectory.appendingPathComponent("demo"),
                               configDirectory: common.paths.configDirectory)
        let creds = try await Session.login(server: server.baseURL, account: "me", password: "tongban-demo", paths: paths)
        let session = try Session(credentials: creds, paths: paths)
        try await TUIRunner.run(session: session, localizer: L, pictureDecoder: DecodeImage.decoder)
        await server.stop()
    }
}

/// The picture decoder the full-screen client starts for every picture that
/// came over the network (ChatMedia.PictureDecoder): this same binary, so a
/// crash or a hang in libvips ends the helper, never the chat.
struct DecodeImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-image",
        abstract: "Decode a JPEG, PNG, GIF or WebP picture from stdin for the full-screen client.",
        shouldDisplay: false)
    @Option(help: "Shrink to at most this many pixels across.") var maxWidth: Int
    @Option(help: "Shrink to at most this many pixels down.") var maxHeight: Int

    /// `/proc/self/exe` runs this very binary even when the file on disk was
    /// replaced by a newer build since the client started; without /proc,
    /// the path it was started from.
    static let decoder: PictureDecoder = {
        let exe = FileManager.default.isExecutableFile(atPath: "/proc/self/exe")
            ? "/proc/self/exe" : (Bundle.main.executablePath ?? CommandLine.arguments[0])
        return PictureDecoder.helper(executable: exe)
    }()

    func run() throws {
        guard (1...HelperFormat.maxSide).contains(maxWidth), (1...HelperFormat.maxSide).contains(maxHeight) else {
            throw ValidationError("--max-width and --max-height are 1 to \(HelperFormat.maxSide)")
        }
        // The client's wall-clock timeout kills a hung helper; a CPU limit
        // also ends one started by hand.
        var limit = rlimit(rlim_cur: 20, rlim_max: 20)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
        var input = Data()
        while input.count <= HelperFormat.maxInput,
              let chunk = try FileHandle.standardInput.read(upToCount: 256 * 1024), !chunk.isEmpty {
            input.append(chunk)
        }
        guard input.count <= HelperFormat.maxInput else {
            throw CLIError("the picture is larger than \(HelperFormat.maxInput / 1_048_576) MiB")
        }
        let image: RGBImage
        do {
            image = try ImageCodec.decode(input, maxWidth: maxWidth, maxHeight: maxHeight)
        } catch let e as ImageCodec.Failure {
            // The client shows this line as it is: no "Error:" in front.
            try? FileHandle.standardError.write(contentsOf: Data((TerminalSanitizer.sanitize(e.description) + "\n").utf8))
            throw ExitCode(1)
        }
        try FileHandle.standardOutput.write(contentsOf: HelperFormat.write(image))
    }
}

/// `tongban ls --json`: the fields of seed §一 `Conversation`.
struct ConversationRow: Encodable {
    var id: String
    var targetUid: Int
    var nickname: String
    var avatar: String
    var isOnline: Bool
    var isPinned: Bool
    var draftText: String?
    var unreadCount: Int
    var lastMessagePreview: String
    var lastMessageTime: Int
    var fromSignal: Bool
    var isImOpened: Bool
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "Conversations: pinned first, newest first.")
    @OptionGroup var common: Common
    @Flag(help: "Print JSON.") var json = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server.") var offline = false

    func run() async throws {
        let session = try await common.session()
        if !offline { _ = try await syncNow(session) }
        let list = try session.store.conversationList(localizer: L)
        if json {
            let rows = list.map { ConversationRow(id: $0.id, targetUid: $0.targetUid, nickname: $0.nickname, avatar: $0.avatar,
                                                  isOnline: $0.isOnline, isPinned: $0.isPinned, draftText: $0.draftText,
                                                  unreadCount: $0.unreadCount, lastMessagePreview: $0.lastMessagePreview,
                                                  lastMessageTime: $0.lastMessageTime, fromSignal: $0.fromSignal, isImOpened: $0.isImOpened) }
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            jsonOut(try enc.encode(rows))
            return
        }
        if list.isEmpty { out(L.string("cli.empty")) }
        for c in list {
            let pin = c.isPinned ? "📌" : "  "
            let unread = c.unreadCount == 0 ? "" : " (\(c.unreadCount > 99 ? "99+" : String(c.unreadCount)))"
            let preview = c.draftText.map { L.string("summary.draft", ["text": $0]) } ?? c.lastMessagePreview
            out("\(pin) \(oneLine(c.nickname))\(unread)  \(timeLabel(c.lastMessageTime))  \(oneLine(preview))")
        }
    }
}

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a text message, an image, a flash image, several images or a voice message.")
    @OptionGroup var common: Common
    @Option(help: "The peer: account, display name or uid (offline too, for anyone chatted with before).") var to: String
    @Option(help: "An image file (JPEG, PNG, GIF, WebP); over 200 KB it is re-encoded as JPEG.") var image: String?
    @Option(help: "An image file sent as a flash image (viewable once).") var flash: String?
    @Option(parsing: .upToNextOption, help: "Up to 9 image files in one message.") var multi: [String] = []
    @Option(help: "A voice file (WAV, MP3, OGG, M4A).") var voice: String?
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
        let ext = ["image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"][p.contentType] ?? "bin"
        let file = try session.media.pendingUploadFile(p.data, ext: ext)
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

/// `tongban history --json`: the fields of seed §一 `ChatMessage`.
struct HistoryLine: Encodable {
    var id: String
    var serverId: String?
    var conversationId: String
    var seq: Int?
    var senderId: String
    var receiverId: String
    var isMe: Bool
    var type: String
    var content: String
    var createTime: Int
    var status: String
    var errorReason: String?
    var isRecalled: Bool
    var isFlash: Bool
    var isDestroyed: Bool
    var objectKey: String?
    var multiObjectKeys: [String]?
    var width: Double?
    var height: Double?
    var durationSec: Int?
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Messages of a conversation, oldest first.")
    @OptionGroup var common: Common
    @Option(help: "Account (display name) or uid of the peer.") var with: String
    @Option(help: "How many of the newest messages.") var limit = 40
    @Flag(help: "Print JSON.") var json = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server.") var offline = false

    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        if !offline {
            _ = try await syncNow(session)
            _ = try await online(session) { try await fillNewest(session, conv) }
        }
        let page = try session.store.newestPage(conversationId: conv, limit: max(1, min(limit, 1000)))
        let me = session.credentials.imUid
        let lines = page.messages.map { r -> HistoryLine in
            let m = r.chatMessage(myImUid: me)
            let text = m.isRecalled ? MessageKinds.summary(of: m, localizer: L) : (m.text ?? MessageKinds.summary(of: m, localizer: L))
            return HistoryLine(id: m.id, serverId: m.serverId, conversationId: m.conversationId, seq: r.seq, senderId: m.senderId,
                               receiverId: m.receiverId, isMe: m.isMe, type: m.type.rawValue, content: text, createTime: m.createTime,
                               status: m.status.rawValue, errorReason: m.errorReason, isRecalled: m.isRecalled, isFlash: m.isFlash,
                               isDestroyed: m.isDestroyed, objectKey: m.objectKey, multiObjectKeys: m.multiObjectKeys,
                               width: m.width, height: m.height, durationSec: m.durationSec)
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            jsonOut(try enc.encode(lines))
            return
        }
        if lines.isEmpty { out(L.string("cli.empty")) }
        let name = try session.store.conversation(id: conv)?.nickname ?? with
        for l in lines {
            let who = l.isMe ? session.credentials.username : name
            let mark = l.status == "sending" ? " …" : l.status == "failed" ? " ✗" : ""
            out("[\(timeLabel(l.createTime))] \(oneLine(who)): \(indentedBody(l.content))\(mark)")
        }
    }

    /// Fetches the newest page from the server when the local copy has holes there.
    func fillNewest(_ session: Session, _ conv: String) async throws {
        let missing = try session.store.missingRanges(conversationId: conv)
        guard let top = missing.last else { return }
        let page = try await session.api.history(conversationId: conv, beforeSeq: top.upperBound + 1, limit: max(1, min(limit, 100)))
        let low = page.hasMore ? (page.messages.first?.seq ?? top.upperBound + 1) : 1
        try session.store.saveHistory(conversationId: conv, messages: page.messages, coveringFrom: low, to: top.upperBound)
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send the queued messages and pull what is new.")
    @OptionGroup var common: Common
    func run() async throws {
        let session = try await common.session()
        let drained = await session.repository.drain(retryTransient: false)
        if case .waiting(let why) = drained { throw CLIError(L.string("cli.unreachable", ["server": session.credentials.server, "reason": why])) }
        guard let changes = try await online(session, { try await session.sync.pull() }) else { throw ExitCode(2) }
        for (conv, count) in changes.incoming.sorted(by: { $0.key < $1.key }) {
            let name = try session.store.conversation(id: conv)?.nickname ?? conv
            for r in try session.store.newestPage(conversationId: conv, limit: count).messages {
                let m = r.chatMessage(myImUid: session.credentials.imUid)
                out("\(oneLine(name)): \(indentedBody(m.text ?? MessageKinds.summary(of: m, localizer: L)))")
            }
        }
        out(L.string("cli.synced", ["count": String(changes.conversationIds.count), "cursor": String(try session.store.syncCursor())]))
    }
}

struct Pin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pin a conversation.")
    @OptionGroup var common: Common
    @Option(help: "Account (display name) or uid of the peer.") var with: String
    func run() async throws { try await setPinned(common, with, true) }
}

struct Unpin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Unpin a conversation.")
    @OptionGroup var common: Common
    @Option(help: "Account (display name) or uid of the peer.") var with: String
    func run() async throws { try await setPinned(common, with, false) }
}

func setPinned(_ common: Common, _ with: String, _ pinned: Bool) async throws {
    let session = try await common.session()
    let conv = try await conversationId(session, with: with)
    do {
        try session.store.saveSummaries([try await session.api.pin(conversationId: conv, isPinned: pinned)])
    } catch let e as APIError { throw CLIError(e.description) }
    out(L.string(pinned ? "cli.pinned" : "cli.unpinned"))
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a conversation (hidden and cleared until a new message).")
    @OptionGroup var common: Common
    @Option(help: "Account (display name) or uid of the peer.") var with: String
    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        do { try await session.api.deleteConversation(conv) } catch let e as APIError { throw CLIError(e.description) }
        try session.store.deleteConversation(id: conv)
        out(L.string("cli.deleted"))
    }
}

struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke one of your messages (within the server's window).")
    @OptionGroup var common: Common
    @Option(help: "Account (display name) or uid of the peer.") var with: String
    @Option(help: "clientMsgID of the message.") var message: String?
    @Flag(help: "Your newest message in the conversation (the default when --message is not given).") var last = false
    func run() async throws {
        let session = try await common.session()
        let conv = try await conversationId(session, with: with)
        _ = try await syncNow(session)
        let target = try message ?? session.store.newestPage(conversationId: conv, limit: 200).messages
            .last { $0.sendID == session.credentials.imUid && !$0.revoked && $0.seq != nil }?.clientMsgID
        guard let target else { throw CLIError(L.string("cli.noOwnMessage")) }
        do { try await session.repository.revoke(clientMsgID: target) } catch let e as APIError { throw CLIError(e.description) }
        out(L.string("cli.revoked"))
    }
}

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the demo server in this process (accounts me/alice/bob/carol).")
    @Option(help: "Port (0 = a free one).") var port = 0
    @Option(name: .customLong("server-dir"), help: "Where the demo server keeps its data.") var serverDir: String?

    func run() async throws {
        var config = ServerConfig()
        config.port = port
        config.demo = true
        config.dataDir = serverDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("tongban-demo-\(getuid())").path
        var logger = Logger(label: "tongban-demo")
        logger.logLevel = .warning
        config.logger = logger
        let server = try await ChatServerApp.start(config: config)
        out(L.string("cli.demoStarted", ["url": server.baseURL, "dir": config.dataDir]))
        let (stream, cont) = AsyncStream<Void>.makeStream()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT)
        source.setEventHandler { cont.finish() }
        source.resume()
        for await _ in stream {}
        await server.stop()
    }
}

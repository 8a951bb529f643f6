import ArgumentParser
import ChatCore
import ChatSync
import Foundation

/// `tongban export --with NAME [--format txt|jsonl|html] [--output FILE]`
/// and `tongban export --all DIR` (docs/cli.md "Export").
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write whole conversations to files: txt, jsonl, or one self-contained HTML page, with their media.",
        discussion: """
            The history is first filled from the server, so older messages not yet on this device are included \
            (offline: what this device has, said on standard error). --with NAME writes one conversation to \
            --output FILE, or to standard output (then without media); --all DIR writes DIR/<title>-<id>.<ext> \
            for every conversation. Pictures, voice messages and files are saved under media/<conversation id>/ \
            beside the file and linked; flash images are never exported. Secret chats only with --include-secret.
            """)
    @OptionGroup var common: Common
    @Option(help: "One conversation: the peer (account, display name or uid) or group (name, unique name or sg_ id).")
    var with: String?
    @Option(help: "Every conversation, one file each, into this folder (media under DIR/media/).") var all: String?
    @Option(help: "txt (the default), jsonl or html.") var format = "txt"
    @Option(help: "With --with: the file to write, media beside it under media/ (default: standard output, without media).")
    var output: String?
    @Flag(help: "With --with: the secret chat with that peer (needs --include-secret).") var secret = false
    @Flag(name: .customLong("include-secret"), help: "Export secret chats too, written decrypted (--all skips them otherwise).")
    var includeSecret = false
    @Flag(name: .customLong("no-media"), help: "List pictures, voice messages and files by name without saving them.")
    var noMedia = false
    @Flag(name: .customLong("offline"), help: "Do not contact the server: export what this device has.") var offline = false

    func validate() throws {
        guard (with == nil) != (all == nil) else { throw ValidationError(L.string("cli.export.withOrAll")) }
        guard ExportFormat(rawValue: format) != nil else {
            throw ValidationError(L.string("cli.export.badFormat", ["format": TerminalSanitizer.oneLine(format)]))
        }
        if all != nil && (output != nil || secret) { throw ValidationError(L.string("cli.export.onlyWithWith")) }
        if let with, secret && !includeSecret {
            throw ValidationError(L.string("cli.export.secretRefused", ["name": TerminalSanitizer.oneLine(with)]))
        }
    }

    func run() async throws {
        let session = try await common.session()
        // Offline the sync has said so once; the export then reads the store only.
        var reached = false
        if !offline { reached = try await syncNow(session) != nil }
        let options = ExportOptions(format: ExportFormat(rawValue: format) ?? .txt, localizer: L, online: reached,
                                    saveMedia: !noMedia, includeSecret: includeSecret)
        do {
            if let all {
                try await exportAll(session, into: all, options)
            } else if let with {
                try await exportOne(session, with, options)
            }
        } catch let e as APIError {
            throw CLIError(ServerWords.describe(e, L))
        }
    }

    func exportOne(_ session: Session, _ name: String, _ options: ExportOptions) async throws {
        let conv = try await resolveConversation(session, with: name, secret: secret)
        let title = try session.reader.conversation(id: conv, localizer: L)?.nickname ?? name
        let file = output.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) }
        let result: ExportResult
        do {
            result = try await session.export(conv, title: title, to: file, options: options)
        } catch ExportError.secretChat {
            throw CLIError(L.string("cli.export.secretRefused", ["name": TerminalSanitizer.oneLine(title)]))
        }
        let count = String(result.messages)
        if let file {
            out(L.string("cli.export.done", ["count": count, "path": file.path]))
        } else {
            // Standard output is the export itself.
            errOut(L.string("cli.export.doneStdout", ["count": count]))
            if result.mediaNotSaved > 0 && !noMedia { errOut(L.string("cli.export.noMediaOnStdout")) }
        }
        warn(title, result)
    }

    func exportAll(_ session: Session, into path: String, _ options: ExportOptions) async throws {
        let dir = URL(fileURLWithPath: (path as NSString).expandingTildeInPath, isDirectory: true)
        let done = try await session.exportAll(into: dir, options: options) { item in
            let name = TerminalSanitizer.oneLine(item.title)
            guard let file = item.file, let result = item.result else {
                errOut(L.string("cli.export.skippedSecret", ["name": name]))
                return
            }
            out(L.string("cli.export.conversation", ["name": name, "count": String(result.messages), "path": file.path]))
            warn(item.title, result)
        }
        out(L.string("cli.export.allDone", ["count": String(done.filter { $0.file != nil }.count), "dir": dir.path]))
    }

    /// What an export lacks, on standard error.
    func warn(_ title: String, _ result: ExportResult) {
        let name = TerminalSanitizer.oneLine(title)
        if result.messagesMissing > 0 {
            let reason = result.fillFailure ?? L.string("cli.export.offline")
            errOut(L.string("cli.export.incomplete", ["name": name, "count": String(result.messagesMissing), "reason": reason]))
        }
        if result.mediaMissing > 0 {
            errOut(L.string("cli.export.mediaMissing", ["name": name, "count": String(result.mediaMissing)]))
        }
    }
}

import Foundation
import Spawn

/// Composing in `$VISUAL` / `$EDITOR` (Ctrl-X Ctrl-E, as bash and zsh do):
/// the draft goes to a file only its owner may read, the editor gets the
/// terminal, and what it saved comes back into the input bar, unsent.
enum ExternalEditor {
    /// The editor command as an argument list: `$VISUAL`, else `$EDITOR`,
    /// else `vi`; split on spaces (`code -w` works), never given to a shell.
    static func command(environment env: [String: String]) -> [String] {
        for name in ["VISUAL", "EDITOR"] {
            let words = (env[name] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
            if !words.isEmpty { return words }
        }
        return ["vi"]
    }

    /// A 0600 file holding `text` in a fresh 0700 folder under `base`.
    static func draftFile(_ text: String, in base: URL) throws -> URL {
        let dir = base.appendingPathComponent("tongban-compose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let file = dir.appendingPathComponent("draft.txt")
        guard FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }

    /// What the editor left: the file's text without the one newline
    /// editors add at the end; nil when it could not be read as UTF-8.
    static func result(of file: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: file.path), let text = String(data: data, encoding: .utf8) else { return nil }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Runs `command` on `file` with the terminal (the caller has given it
    /// up); true when the editor ran and exited with 0. It stays in this
    /// process's group: in a group of its own an editor is a background job,
    /// and stops (SIGTTOU) as soon as it sets the terminal up. It gets our
    /// terminal as its standard descriptors and none of our others (the
    /// store, the server's connections).
    static func run(_ command: [String], on file: URL) -> Bool {
        guard let exe = Programs.which(command[0]),
              let editor = try? ChildProcess(exe, Array(command.dropFirst()) + [file.path], stdin: .inherit, stdout: .inherit,
                                             stderr: .inherit, ownGroup: false)
        else { return false }
        return editor.waitUntilExit().succeeded
    }

    /// The whole round: file, editor, text back, file gone. nil: the draft
    /// is left as it was (no editor, it failed, or the text did not read).
    static func compose(_ text: String, environment env: [String: String],
                        in base: URL = FileManager.default.temporaryDirectory,
                        suspended: (@escaping @Sendable () -> String?) async -> String?) async -> String? {
        guard let file = try? draftFile(text, in: base) else { return nil }
        let command = command(environment: env)
        let edited = await suspended { run(command, on: file) ? result(of: file) : nil }
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
        return edited
    }
}

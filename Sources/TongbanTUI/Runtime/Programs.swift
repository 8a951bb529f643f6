import Foundation
import Spawn
import TerminalUI

/// The external programs the client starts: an audio player, a recorder and
/// the system viewer. Always with an argument list, never through a shell.
enum Programs {
    enum Failure: Error, Equatable {
        /// None of the candidates is on PATH (the name asked for, if one was).
        case notFound(String?)
    }

    typealias Candidate = (name: String, arguments: [String])

    static let players: [Candidate] = [
        ("mpv", ["--no-video", "--really-quiet"]), ("ffplay", ["-nodisp", "-autoexit", "-loglevel", "quiet"]),
        ("paplay", []), ("aplay", ["-q"]),
    ]
    static let recorders: [Candidate] = [
        ("arecord", ["-q", "-f", "S16_LE", "-r", "16000", "-c", "1", "-t", "wav"]),
        ("ffmpeg", ["-loglevel", "quiet", "-f", "alsa", "-i", "default", "-ac", "1", "-ar", "16000", "-y"]),
    ]

    /// The first candidate on PATH (an override from the environment
    /// replaces the list), started on `file` with its output discarded.
    static func start(_ candidates: [Candidate], override: String?, file: URL,
                      onExit: (@Sendable () -> Void)? = nil) throws -> ChildProcess {
        let chosen = override.map { [($0, [String]())] } ?? candidates
        guard let (exe, args) = chosen.lazy.compactMap({ c in which(c.0).map { ($0, c.1) } }).first else {
            throw Failure.notFound(override)
        }
        return try launch(exe, args + [file.path], onExit: onExit)
    }

    /// Starts `exe` with an argument list (never a shell), its input and
    /// output discarded, in a process group of its own (a Ctrl-C meant for
    /// the client does not cut a recording short).
    static func launch(_ exe: String, _ arguments: [String], onExit: (@Sendable () -> Void)? = nil) throws -> ChildProcess {
        guard let onExit else { return try ChildProcess(exe, arguments) }
        return try ChildProcess(exe, arguments) { _ in onExit() }
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func play(_ file: URL, onExit: @escaping @Sendable () -> Void) throws -> ChildProcess {
        try start(players, override: environment["TONGBAN_AUDIO_PLAYER"], file: file, onExit: onExit)
    }

    static func record(into file: URL) throws -> ChildProcess {
        try start(recorders, override: environment["TONGBAN_RECORDER"], file: file)
    }

    /// `TONGBAN_IMAGE_VIEWER`, else xdg-open.
    static func view(_ file: URL) throws {
        _ = try start([], override: environment["TONGBAN_IMAGE_VIEWER"] ?? "xdg-open", file: file)
    }

    /// `TONGBAN_URL_OPENER`, else xdg-open, on a link (one argument).
    static func openLink(_ url: String) throws {
        let name = environment["TONGBAN_URL_OPENER"] ?? "xdg-open"
        guard let exe = which(name) else { throw Failure.notFound(name) }
        _ = try launch(exe, [url])
    }

    /// `notify-send` with the notification as arguments (never a shell).
    static func notifySend(_ n: DesktopNotification) {
        guard let exe = which("notify-send") else { return }
        _ = try? launch(exe, DesktopNotifier.notifySendArguments(for: n))
    }

    /// Stops a recorder: SIGINT first (it finishes the WAV header), then
    /// SIGTERM after a second.
    static func stop(_ p: ChildProcess) async {
        p.send(SIGINT)
        for _ in 0..<50 where p.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        p.send(SIGTERM)
    }

    /// The full path of an executable on PATH (or the path itself).
    static func which(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        return DesktopNotifier.findExecutable(name, path: environment["PATH"] ?? "/usr/bin:/bin")
    }
}

import Foundation
import Spawn

/// Copying text to the system clipboard from a terminal program: a
/// clipboard tool when one is installed (`wl-copy` under Wayland, `xclip`
/// under X), else OSC 52, which the terminal itself carries out (through
/// tmux in a passthrough, as notifications go).
public enum Clipboard {
    public enum Method: Equatable, Sendable {
        /// A program that takes the text on its standard input, with its arguments.
        case program(path: String, arguments: [String])
        case osc52(insideTmux: Bool)
    }

    /// The largest text OSC 52 carries: terminals cap the sequence (xterm
    /// at 100,000 bytes of base64).
    public static let osc52Limit = 74_000

    /// `wl-copy` when Wayland is running, `xclip -selection clipboard` when X
    /// is, found on PATH through `which`; else OSC 52.
    public static func choose(environment env: [String: String], which: (String) -> String?) -> Method {
        if env["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true, let p = which("wl-copy") {
            return .program(path: p, arguments: [])
        }
        if env["DISPLAY"].map({ !$0.isEmpty }) == true, let p = which("xclip") {
            return .program(path: p, arguments: ["-selection", "clipboard"])
        }
        return .osc52(insideTmux: env["TMUX"] != nil)
    }

    /// OSC 52 setting the clipboard to `text` (nil when it is too long).
    /// Inside tmux the sequence goes in a passthrough (`allow-passthrough
    /// on`), and once more as is for tmux's own `set-clipboard on`.
    public static func osc52(_ text: String, insideTmux: Bool) -> String? {
        let data = Data(text.utf8)
        guard data.count <= osc52Limit else { return nil }
        let plain = "\u{1B}]52;c;" + data.base64EncodedString() + "\u{07}"
        guard insideTmux else { return plain }
        return "\u{1B}Ptmux;" + plain.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\" + plain
    }

    /// Runs a clipboard program with `text` on its standard input (an
    /// argument list, never a shell); false when it could not run or failed.
    /// Its output goes to /dev/null, not a pipe (so not `ChildProcess.run`):
    /// xclip leaves a child behind that serves the selection, holding any
    /// pipe it was given open long after the program itself exited.
    public static func run(path: String, arguments: [String], text: String) -> Bool {
        ChildProcess.ignoreBrokenPipes()
        guard let input = try? ChildProcess.Pipe() else { return false }
        let child = try? ChildProcess(path, arguments, stdin: .descriptor(input.read))
        close(input.read)
        // A program that exits without reading closes the pipe: the write
        // fails (EPIPE) instead of trapping, and the exit status says so.
        let feed = FileHandle(fileDescriptor: input.write, closeOnDealloc: true)
        if child != nil { try? feed.write(contentsOf: Data(text.utf8)) }
        try? feed.close()
        return child?.waitUntilExit().succeeded ?? false
    }
}

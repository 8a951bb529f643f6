import Foundation

/// Whether the full-screen client can draw here, before ncurses is asked:
/// both standard input and output must be a terminal, and `TERM` must name a
/// terminal with a terminfo entry (not `dumb`). Policy only: the caller
/// says why and exits.
public enum TerminalCheck {
    public enum Problem: Equatable, Sendable {
        /// Standard input or output is not a terminal (a pipe, a file, cron).
        case notATerminal
        /// `TERM` is unset or empty.
        case noTerm
        /// `TERM=dumb`: no cursor addressing.
        case dumb
        /// No terminfo entry for `TERM`.
        case unknown(String)
    }

    public static func problem(environment: [String: String], stdinIsTerminal: Bool, stdoutIsTerminal: Bool,
                               hasTerminfo: (String) -> Bool) -> Problem? {
        guard stdinIsTerminal && stdoutIsTerminal else { return .notATerminal }
        guard let term = environment["TERM"], !term.isEmpty else { return .noTerm }
        if term == "dumb" { return .dumb }
        return hasTerminfo(term) ? nil : .unknown(term)
    }

    /// This process's own answer.
    public static func here() -> Problem? {
        let env = ProcessInfo.processInfo.environment
        return problem(environment: env, stdinIsTerminal: isatty(STDIN_FILENO) == 1, stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
                       hasTerminfo: { terminfoExists($0, environment: env) })
    }

    /// Whether ncurses would find a terminfo entry for `term`: `$TERMINFO`,
    /// `~/.terminfo`, `$TERMINFO_DIRS`, then the system folders, each as
    /// `<dir>/<first letter>/<term>` or `<dir>/<hex of the first letter>/<term>`.
    public static func terminfoExists(_ term: String, environment: [String: String]) -> Bool {
        guard let first = term.unicodeScalars.first, !term.contains("/"), term != ".", term != ".." else { return false }
        var dirs: [String] = []
        if let dir = environment["TERMINFO"], !dir.isEmpty { dirs.append(dir) }
        if let home = environment["HOME"], !home.isEmpty { dirs.append(home + "/.terminfo") }
        dirs += (environment["TERMINFO_DIRS"] ?? "").split(separator: ":").map(String.init)
        dirs += ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo", "/usr/lib/terminfo", "/usr/local/share/terminfo"]
        // Not String(format:): its first call in a process, on every
        // start's way to the first frame, took 0.25–0.35 ms.
        let digits = String(first.value, radix: 16)
        let letter = String(first), hex = digits.count < 2 ? "0" + digits : digits
        return dirs.contains { dir in
            [letter, hex].contains { FileManager.default.fileExists(atPath: "\(dir)/\($0)/\(term)") }
        }
    }
}

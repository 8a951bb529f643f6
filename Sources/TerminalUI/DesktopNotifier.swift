import Foundation

/// One desktop notification, safe to put inside a terminal escape sequence
/// or an argument list: one line, no control characters, short.
public struct DesktopNotification: Sendable, Equatable {
    /// At most `titleLimit` Characters, one line, no control characters.
    public var title: String
    /// At most `bodyLimit` Characters, one line, no control characters.
    public var body: String

    /// Longest title, in Characters: notification bubbles show about one line of it.
    public static let titleLimit = 60
    /// Longest body, in Characters: a preview, not the message.
    public static let bodyLimit = 120

    /// Cleans `title` and `body` (see `clean(_:limit:)`) and shortens them
    /// to `titleLimit` and `bodyLimit` Characters, ending a cut one with "…".
    public init(title: String, body: String) {
        self.title = Self.clean(title, limit: Self.titleLimit)
        self.body = Self.clean(body, limit: Self.bodyLimit)
    }

    /// One line of at most `limit` Characters. Runs of control characters
    /// (Cc: newline, tab, ESC, C1), line and paragraph separators and spaces
    /// become one space; invisible format characters (Cf: bidi overrides,
    /// zero-width space) are dropped, except those that hold emoji and some
    /// scripts together; the ends are trimmed. A cut ends with "…" and falls
    /// between Characters, so a flag or a ZWJ family is never split.
    /// Idempotent, which lets the encoders below apply it again.
    static func clean(_ text: String, limit: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator:
                pendingSpace = true
            case .format where !joinsCharacters(scalar):
                continue
            default:
                // A space only between kept text: leading and trailing runs vanish.
                if pendingSpace && !scalars.isEmpty { scalars.append(" ") }
                pendingSpace = false
                scalars.append(scalar)
            }
        }
        let line = String(scalars)
        guard line.count > limit else { return line }
        var cut = String(line.prefix(max(0, limit - 1)))
        while cut.last?.isWhitespace == true { cut.removeLast() }
        return cut + "…"
    }

    /// ZWJ and ZWNJ (emoji sequences, Persian, Indic) and the tag characters
    /// of subdivision flags: dropping them would change what the text says.
    private static func joinsCharacters(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200C || scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value)
    }
}

/// How to show a desktop notification from the terminal this client runs in.
public enum NotifyMethod: String, Sendable, CaseIterable {
    /// `OSC 777 ; notify ; title ; body` (WezTerm, foot, VTE, konsole).
    case osc777
    /// `OSC 9 ; text` (iTerm2, ghostty): one text, no separate title.
    case osc9
    /// kitty's notification protocol, title and body as separate parts.
    case osc99
    /// The `notify-send` program (libnotify), beside the terminal.
    case notifySend = "notify-send"
    /// No notifications.
    case off

    /// The method for the terminal described by `environment`.
    ///
    /// `TONGBAN_NO_NOTIFY` (any value) turns notifications off;
    /// `TONGBAN_NOTIFY` names a method (a raw value) and beats detection.
    /// `hasExecutable` answers whether a program is on PATH, e.g.
    /// `{ DesktopNotifier.findExecutable($0, path: environment["PATH"]) != nil }`.
    public static func choose(environment: [String: String], hasExecutable: (String) -> Bool) -> NotifyMethod {
        func isSet(_ key: String) -> Bool { !(environment[key] ?? "").isEmpty }
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        // An explicit opt-out wins, even set empty, so `TONGBAN_NO_NOTIFY= tongban` works.
        if environment["TONGBAN_NO_NOTIFY"] != nil { return .off }
        // The user knows the terminal better than guessing; a typo falls through to detection.
        if let forced = environment["TONGBAN_NOTIFY"].flatMap({ NotifyMethod(rawValue: $0.lowercased()) }) {
            return forced
        }
        // kitty's own protocol keeps title and body apart; KITTY_WINDOW_ID survives tmux.
        if term == "xterm-kitty" || isSet("KITTY_WINDOW_ID") { return .osc99 }
        // iTerm2 shows OSC 9; LC_TERMINAL is its mark that survives tmux and ssh.
        if program == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2" { return .osc9 }
        // ghostty shows OSC 9; GHOSTTY_RESOURCES_DIR survives tmux.
        if program == "ghostty" || term == "xterm-ghostty" || isSet("GHOSTTY_RESOURCES_DIR") { return .osc9 }
        // WezTerm (WEZTERM_PANE survives tmux) and foot show OSC 777 title and body.
        if program == "WezTerm" || isSet("WEZTERM_PANE") || term.hasPrefix("foot") { return .osc777 }
        // GNOME Terminal and other VTE terminals, and konsole, take OSC 777; both variables survive tmux.
        if isSet("VTE_VERSION") || isSet("KONSOLE_VERSION") { return .osc777 }
        // Unknown terminals may print an OSC as text; on a desktop notify-send reaches the daemon directly.
        if (isSet("DISPLAY") || isSet("WAYLAND_DISPLAY")) && hasExecutable("notify-send") { return .notifySend }
        // Nothing known to work: silence beats escape sequences shown as junk.
        return .off
    }
}

/// Turns a `DesktopNotification` into what shows it: the bytes to write to
/// the terminal, or the arguments for `notify-send`.
public enum DesktopNotifier {
    /// What to write to the terminal for `method`, or nil for `.notifySend`
    /// and `.off`.
    ///
    /// `insideTmux` (`TMUX` is set): tmux would swallow the OSC, so the whole
    /// output goes in one tmux passthrough, `ESC P tmux;` + the sequences
    /// with every ESC doubled + `ESC \`. That needs `set -g allow-passthrough on`
    /// (tmux 3.3 or later); without it tmux drops the notification silently.
    ///
    /// For OSC 9, text that starts with a digit would be read by iTerm2 and
    /// ConEmu as a sub-command (`9;4;…` is a progress bar), so it gets a
    /// "Tongban: " prefix.
    public static func escapeSequence(for notification: DesktopNotification, method: NotifyMethod,
                                      insideTmux: Bool) -> String? {
        // `title` and `body` are settable: clean again so text can never end the sequence.
        let title = DesktopNotification.clean(notification.title, limit: DesktopNotification.titleLimit)
        let body = DesktopNotification.clean(notification.body, limit: DesktopNotification.bodyLimit)
        let payload: String
        switch method {
        case .osc777:
            // `;` separates the fields, so text cannot contain it.
            let fields = [title, body].map { replacing(";", with: ",", in: $0) }
            payload = "\u{1B}]777;notify;\(fields[0]);\(fields[1])\u{1B}\\"
        case .osc9:
            var text = [title, body].filter { !$0.isEmpty }.joined(separator: ": ")
            if let first = text.unicodeScalars.first, ("0"..."9").contains(first) { text = "Tongban: " + text }
            payload = "\u{1B}]9;\(text)\u{07}"
        case .osc99:
            // d=0: more parts follow under the same id; d=1: show it. The payload runs to ESC \, so `;` is fine.
            payload = "\u{1B}]99;i=tongban:d=0;\(title)\u{1B}\\" + "\u{1B}]99;i=tongban:d=1:p=body;\(body)\u{1B}\\"
        case .notifySend, .off:
            return nil
        }
        guard insideTmux else { return payload }
        return "\u{1B}Ptmux;" + replacing("\u{1B}", with: "\u{1B}\u{1B}", in: payload) + "\u{1B}\\"
    }

    /// The argument list for `notify-send`; start it through `Process` with
    /// these arguments, never through a shell. `--` keeps a title that
    /// starts with "-" from being read as an option. Notification daemons
    /// read the body as markup (the specification's `<b>`, `<a href>`,
    /// `<img>`), so its `&`, `<` and `>` are written as entities: a message
    /// shows as typed and cannot make a link. The summary is plain text by
    /// the specification and goes as it is.
    public static func notifySendArguments(for notification: DesktopNotification) -> [String] {
        let clean = DesktopNotification(title: notification.title, body: notification.body)
        return ["--app-name=Tongban", "--", clean.title, escapingMarkup(clean.body)]
    }

    /// One pass over the scalars: the `&` of an entity written here is never
    /// escaped again (what "`&` first" guards against in chained replaces).
    static func escapingMarkup(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// The full path of the executable regular file `name` in the first
    /// directory of the colon-separated `path` that has one, or nil.
    /// Nil for a name containing "/" (not a program name). Empty and
    /// relative entries are skipped: they would search the working directory.
    public static func findExecutable(_ name: String, path: String?) -> String? {
        guard let path, !name.isEmpty, !name.contains("/") else { return nil }
        let files = FileManager.default
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = directory.hasSuffix("/") ? "\(directory)\(name)" : "\(directory)/\(name)"
            // A directory with its x bit set also counts as "executable"; only a regular file (or a link to one) runs.
            let target = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
            let type = (try? files.attributesOfItem(atPath: target))?[.type] as? FileAttributeType
            if type == .typeRegular && files.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Scalar by scalar, unlike Character matching, which misses a `;` that
    /// a following combining mark has joined into one Character.
    private static func replacing(_ old: Unicode.Scalar, with new: String, in text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == old { result.append(contentsOf: new.unicodeScalars) } else { result.append(scalar) }
        }
        return String(result)
    }
}

extension Terminal {
    /// Why `start()` failed.
    public enum StartError: Error, Equatable, CustomStringConvertible {
        /// stdin or stdout is not a terminal (piped, or no tty).
        case notATerminal
        /// Neither the user's locale nor C.UTF-8 is a UTF-8 locale.
        case noUTF8Locale
        /// ncurses does not know the terminal type.
        case cannotInitialize(term: String)
        /// `start()` was already called on this terminal.
        case alreadyStarted

        public var description: String {
            switch self {
            case .notATerminal:
                return "standard input and output must be a terminal for the full-screen interface"
            case .noUTF8Locale:
                return "no UTF-8 locale available (tried the environment's and C.UTF-8)"
            case .cannotInitialize(let term):
                return "cannot initialise the terminal (TERM=\(term.isEmpty ? "unset" : term)); try TERM=xterm-256color"
            case .alreadyStarted:
                return "the terminal was already started"
            }
        }
    }
}

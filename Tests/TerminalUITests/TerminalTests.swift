import Foundation
import Testing
@testable import TerminalUI

@Suite struct TerminalTests {
    /// Without a tty, start() fails with an error that says so instead of
    /// ncurses exiting the process. (Skipped when the tests run on a tty.)
    @Test(.enabled(if: isatty(0) == 0 || isatty(1) == 0))
    func startWithoutTTYThrows() {
        let terminal = Terminal()
        #expect(throws: Terminal.StartError.notATerminal) {
            try terminal.start()
        }
        #expect(throws: Terminal.StartError.alreadyStarted) {
            try terminal.start()
        }
        terminal.stop()  // harmless
        #expect(terminal.size == (80, 24) ? true : false)
    }

    /// `begin()` then `start()` (the client's start opens its store between
    /// the two): start() waits for what the first begin started and gives
    /// its answer once; a second begin starts nothing.
    @Test(.enabled(if: isatty(0) == 0 || isatty(1) == 0))
    func startAfterBeginGivesTheBegunStartsAnswer() {
        let terminal = Terminal()
        terminal.begin()
        terminal.begin()
        #expect(throws: Terminal.StartError.notATerminal) {
            try terminal.start()
        }
        #expect(throws: Terminal.StartError.alreadyStarted) {
            try terminal.start()
        }
        terminal.stop()
    }
}

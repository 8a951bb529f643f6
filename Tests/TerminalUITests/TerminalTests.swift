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
}

import Foundation
import Spawn
import Synchronization
import Testing

/// External programs (players, recorders, viewers, the clipboard, the
/// picture decoder, the editor) start with only what they are given and
/// end with their status heard, whatever else this process has open.
@Suite struct ChildProcessTests {
    /// Runs `script` with its standard output in a pipe; what it printed and how it ended.
    func output(of script: String, ownGroup: Bool = true) throws -> (String, ChildProcess.Ending) {
        let out = try ChildProcess.Pipe()
        let child = try ChildProcess("/bin/sh", ["-c", script], stdout: .descriptor(out.write), ownGroup: ownGroup)
        close(out.write)
        let reader = FileHandle(fileDescriptor: out.read, closeOnDealloc: true)
        let text = String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self)
        return (text, child.waitUntilExit())
    }

    /// Which of the shell's descriptors 0 through `upTo` are open, one a
    /// line: by `test`, which opens nothing (a listing would show its own
    /// directory, and bash or ash would run a lone `ls` in the shell's place).
    static func listDescriptors(upTo last: Int32) -> String {
        "for n in \((0...last).map(String.init).joined(separator: " ")); do [ -e /proc/$$/fd/$n ] && echo $n; done; true"
    }

    @Test func aChildGetsItsThreeStandardDescriptorsAndNoneOfOurs() throws {
        // Not closed on exec: only the spawn itself keeps it from the child.
        let ours = open("/dev/null", O_RDONLY)
        defer { close(ours) }
        #expect(ours > 2)
        let (listed, ending) = try output(of: ChildProcessTests.listDescriptors(upTo: ours + 16))
        #expect(ending == .exit(0))
        #expect(listed.split(separator: "\n") == ["0", "1", "2"])
    }

    @Test func theEndingIsHeardOnceAndKept() throws {
        let heard = Mutex<[ChildProcess.Ending]>([])
        let told = DispatchSemaphore(value: 0)
        let child = try ChildProcess("/bin/sh", ["-c", "exit 3"]) { ending in
            heard.withLock { $0.append(ending) }
            told.signal()
        }
        #expect(child.waitUntilExit() == .exit(3))
        #expect(child.waitUntilExit() == .exit(3))
        #expect(!child.isRunning)
        #expect(!child.waitUntilExit().succeeded)
        #expect(told.wait(timeout: .now() + .seconds(60)) == .success)
        #expect(heard.withLock { $0 } == [.exit(3)])
    }

    @Test func aSignalEndsItAndIsReported() throws {
        let child = try ChildProcess("/bin/sleep", ["60"])
        #expect(child.isRunning)
        child.send(SIGTERM)
        #expect(child.waitUntilExit() == .signal(SIGTERM))
        #expect(!child.isRunning)
    }

    /// What this process ignores (SIGPIPE always; SIGTERM and SIGINT where
    /// a service group or the terminal takes them) the child does not: a
    /// player must stop when told.
    @Test func aSignalWeIgnoreStillEndsTheChild() throws {
        var ignore = sigaction(), before = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigaction(SIGUSR1, &ignore, &before)
        defer { sigaction(SIGUSR1, &before, nil) }
        let child = try ChildProcess("/bin/sleep", ["60"])
        child.send(SIGUSR1)
        #expect(child.waitUntilExit() == .signal(SIGUSR1))
    }

    /// Players and recorders run in a group of their own (a Ctrl-C meant
    /// for the client does not reach them); an editor stays in ours, or it
    /// stops as a background job when it takes the terminal.
    @Test func ownGroupOrOurs() throws {
        // Field 5 of /proc/PID/stat is the process group: after "comm)", state, parent, group.
        let script = "read -r line < /proc/$$/stat; echo $$ ${line##*) }"
        func group(ownGroup: Bool) throws -> (pid: Int32, group: Int32) {
            let (said, ending) = try output(of: script, ownGroup: ownGroup)
            #expect(ending == .exit(0))
            // PID, then state, parent, group.
            let fields = said.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            try #require(fields.count >= 4, "\(said)")
            return (try #require(Int32(fields[0])), try #require(Int32(fields[3])))
        }
        let own = try group(ownGroup: true)
        #expect(own.group == own.pid)
        #expect(try group(ownGroup: false).group == getpgrp())
    }

    @Test func aProgramThatIsNotThereIsAnError() {
        #expect(throws: POSIXError.self) { try ChildProcess("/nonexistent/player", []) }
    }

    /// Input is fed while output is read: a megabyte through `cat` comes
    /// back whole, where writing it all first would stall on a full pipe.
    @Test func runFeedsAndCollectsAtOnce() throws {
        let data = Data((0..<(1 << 20)).map { UInt8($0 % 251) })
        let (output, ending) = try ChildProcess.run("/bin/cat", [], input: data)
        #expect(ending == .exit(0))
        #expect(output == data)
    }

    /// A program that exits without reading its input: the write fails
    /// quietly (SIGPIPE is ignored here) and its status is the answer.
    @Test func runSurvivesAProgramThatReadsNothing() throws {
        let (output, ending) = try ChildProcess.run("/bin/sh", ["-c", "echo 早; exit 4"], input: Data(count: 1 << 20))
        #expect(ending == .exit(4))
        #expect(String(decoding: output, as: UTF8.self) == "早\n")
    }
}

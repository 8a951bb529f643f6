import Foundation
import Testing
@testable import TerminalUI

@Suite struct ResidentPagesTests {
    @Test func onlyPrivateReadOnlyMappingsOfTheProgramAndItsLibrariesAreLookedAt() {
        let maps = """
        55d0c0000000-55d0c0100000 r--p 00000000 08:01 1234   /usr/bin/tongban
        55d0c0100000-55d0c2000000 r-xp 00100000 08:01 1234   /usr/bin/tongban
        55d0c2000000-55d0c2100000 rw-p 02000000 08:01 1234   /usr/bin/tongban
        7f0000000000-7f0000021000 rw-p 00000000 00:00 0
        7f0000100000-7f0000108000 rw-s 00000000 08:01 99     /home/u/chat.sqlite-shm
        7f0000200000-7f0000201000 r--s 00000000 08:01 98     /usr/lib/locale/cache
        7f0000300000-7f0000400000 r-xp 00000000 08:01 97     /tmp/old build (deleted)
        7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0      [vdso]
        7ffd00010000-7ffd00031000 rw-p 00000000 00:00 0      [stack]
        7f0000500000-7f0000600000 r-xp 00000000 08:01 96     /usr/lib/libc.so.6
        7f0000700000-7f0000800000 r--p 00000000 08:01 95     /usr/lib/locale/locale-archive
        7f0000900000-7f0000a00000 r--p 00000000 08:01 94     /home/u/.cache/tongban/picture.jpg
        7f0000b00000-7f0000c00000 r--p 00000000 08:01 93     /usr/bin/tongban-other
        garbage line
        """
        let found = ResidentPages.candidates(maps: maps[...], exe: "/usr/bin/tongban")
        #expect(found == [
            .init(start: 0x55d0_c000_0000, end: 0x55d0_c010_0000),
            .init(start: 0x55d0_c010_0000, end: 0x55d0_c200_0000),
            .init(start: 0x7f00_0050_0000, end: 0x7f00_0060_0000),
        ])
    }

    @Test func sharedObjectsAreKnownByTheirNames() {
        for name in ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/libsqlite3.so.0.8.6", "/lib64/ld-linux-x86-64.so.2", "/opt/libfoo.so"] {
            #expect(ResidentPages.isSharedObject(name[...]), "\(name)")
        }
        for name in ["/home/u/evil.so.jpg", "/home/u/so", "/usr/lib/locale/locale-archive", "/home/u/a.so.", "/x/lib.so.1a", "/x.so/file"] {
            #expect(!ResidentPages.isSharedObject(name[...]), "\(name)")
        }
    }

    @Test func aPageTheProcessWroteOrThatIsSwappedIsNeverInARun() {
        let present: UInt64 = 1 << 63, swapped: UInt64 = 1 << 62, file: UInt64 = 1 << 61
        let entries: [UInt64] = [
            present | file, present | file,  // run 0..<2
            present,                         // written: the process's own copy
            present | file,                  // run 3..<4
            0,                               // not resident
            swapped,                         // swapped out (the process's own)
            present | file, present | file, present | file,  // run 6..<9, to the end
        ]
        let runs = entries.withUnsafeBufferPointer { ResidentPages.releasable($0) }
        #expect(runs.map { [$0.first, $0.count] } == [[0, 2], [3, 1], [6, 3]])
    }

    /// A private mapping of a library file, one page written and then made
    /// read-only (what the loader does to `.data.rel.ro`): releasing keeps
    /// the written page's bytes and drops the others, which read back from
    /// the file.
    @Test func releasingKeepsWrittenPagesAndDropsTheFilesOwn() throws {
        #if os(Linux)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let count = 8
        var bytes = [UInt8](repeating: 0, count: page * count)
        for i in 0..<count { bytes[i * page] = UInt8(i + 1) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("libresident-\(UUID().uuidString).so").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let length = page * count
        let raw = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
        try #require(raw != MAP_FAILED)
        let base = try #require(raw)
        defer { munmap(base, length) }
        let memory = base.assumingMemoryBound(to: UInt8.self)
        var sum = 0
        for i in 0..<count { sum += Int(memory[i * page]) }  // every page resident
        #expect(sum == (1...count).reduce(0, +))
        memory[2 * page] = 0xEE                               // page 2 is now the process's own
        #expect(mprotect(base, length, PROT_READ) == 0)

        #expect(ResidentPages.release() > 0)

        let resident = try residentPages(of: base, count: count, page: page)
        #expect(resident == [false, false, true, false, false, false, false, false],
                "the file's pages were released, the written one kept")
        #expect(memory[2 * page] == 0xEE, "the written page keeps its bytes")
        for i in 0..<count where i != 2 {
            #expect(memory[i * page] == UInt8(i + 1), "page \(i) reads back from the file")
        }
        #endif
    }

    private func residentPages(of base: UnsafeMutableRawPointer, count: Int, page: Int) throws -> [Bool] {
        let fd = open("/proc/self/pagemap", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: count)
        let want = count * 8
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(Int(bitPattern: base) / page * 8)) }
        try #require(got == want)
        return entries.map { $0 >> 63 & 1 == 1 }
    }
}

@Suite struct PageReleasePolicyTests {
    let ms: UInt64 = 1_000_000

    @Test func nothingIsDueBeforeTheFirstFrame() {
        var policy = PageReleasePolicy(quiet: 1000 * ms, busyFrames: 3)
        #expect(policy.wait(now: 5000 * ms) == nil)
        let due1 = policy.takeDue(now: 5000 * ms)
        #expect(!due1)
    }

    @Test func theStartIsReleasedThreeTimesThenOnlyAfterABusySpell() {
        var policy = PageReleasePolicy(quiet: 1000 * ms, startQuiet: 250 * ms, busyFrames: 3)
        policy.frameDrawn(at: 100 * ms)
        #expect(policy.wait(now: 100 * ms) == 0, "the first frame is out: what came before it goes at once")
        let due0 = policy.takeDue(now: 100 * ms)
        #expect(due0, "the first frame's release")

        // Connecting and the first screens: the start's quiet spell, which
        // needs no further frame.
        #expect(policy.wait(now: 200 * ms) == 150, "the thread sleeps until the start's quiet spell is over")
        let due1 = policy.takeDue(now: 200 * ms)
        #expect(!due1)
        policy.keyRead(at: 300 * ms)
        let due2 = policy.takeDue(now: 500 * ms)
        #expect(!due2, "a key starts the quiet spell again")
        #expect(policy.wait(now: 500 * ms) == 50)
        let due3 = policy.takeDue(now: 550 * ms)
        #expect(due3, "the start's quiet release")
        let due4 = policy.takeDue(now: 9000 * ms)
        #expect(!due4, "nothing drawn since")
        #expect(policy.wait(now: 9000 * ms) == nil, "nothing to wake for")

        // What the start did once connected (the first sync's frame): one
        // frame is enough, and the longer spell applies.
        policy.frameDrawn(at: 10_000 * ms)
        #expect(policy.wait(now: 10_000 * ms) == 1000)
        let due5 = policy.takeDue(now: 11_000 * ms)
        #expect(due5, "the start's last release")

        // From here an idle client's occasional redraw is not busy.
        policy.frameDrawn(at: 60_000 * ms)
        policy.frameDrawn(at: 120_000 * ms)
        let due6 = policy.takeDue(now: 200_000 * ms)
        #expect(!due6)
        policy.frameDrawn(at: 180_000 * ms)
        #expect(policy.wait(now: 180_500 * ms) == 500)
        let due7 = policy.takeDue(now: 181_000 * ms)
        #expect(due7, "three frames make a busy spell")
        policy.frameDrawn(at: 240_000 * ms)
        let due8 = policy.takeDue(now: 300_000 * ms)
        #expect(!due8, "and one frame no longer does")
    }

    @Test func aWaitIsRoundedUpToWholeMilliseconds() {
        var policy = PageReleasePolicy(quiet: 1000 * ms, startQuiet: 1000 * ms, busyFrames: 1)
        policy.frameDrawn(at: 0)
        let first = policy.takeDue(now: 0)
        #expect(first, "the first frame's release")
        #expect(policy.wait(now: 999 * ms + 1) == 1, "never a zero sleep before it is due")
        #expect(policy.wait(now: 1000 * ms) == 0)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Hands back to the kernel the clean pages of code and read-only data the
/// process has mapped from its files (the executable and its libraries):
/// `madvise(MADV_DONTNEED)` on each run of them. A page the process runs or
/// reads again comes back from the page cache on its next touch (a minor
/// fault, no disk read while the file is cached), so only what is in use
/// stays resident.
///
/// Why: a start runs code an idle client never runs again (argument
/// parsing, the store's migrations and first reads, the first layout), and
/// the kernel maps an executable's pages in blocks of 64 KiB around each
/// one touched; they stay mapped, and counted in the client's RSS, until
/// memory runs short. Under memory pressure the kernel would drop exactly
/// these pages itself (they are clean copies of a file); this only does it
/// earlier.
///
/// Only pages that are a file's own are released: a page of a private
/// mapping that was written (the loader's relocations of `.data.rel.ro`,
/// made read-only after) is the process's own copy, and dropping it would
/// bring back the file's unrelocated bytes. `/proc/self/pagemap` says per
/// page whether it is present and still the file's (bit 61), and only
/// mappings nobody can write (no `w` permission) are looked at, so a page
/// cannot become the process's own copy between the look and the release.
/// And only the executable's and the shared libraries' mappings, which stay
/// for the process's life: a file another thread maps for a moment could
/// be unmapped between the look and the release, and its addresses given
/// to memory whose contents a release would wipe.
public enum ResidentPages {
    /// A mapping of `/proc/self/maps` worth looking at: private, not
    /// writable, of the executable or a shared library.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
    }

    /// The private, non-writable mappings of the executable (`exe`) and of
    /// shared libraries (`.so` in the name) in a `maps` text. Anonymous and
    /// special mappings (`[vdso]`, `[stack]`), other files, shared mappings
    /// and anything writable are left out.
    static func candidates(maps: Substring, exe: String) -> [Mapping] {
        var result: [Mapping] = []
        for line in maps.split(separator: "\n", omittingEmptySubsequences: true) {
            // address perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let perms = Array(fields[1].utf8)
            guard perms.count == 4, perms[1] != UInt8(ascii: "w"), perms[3] == UInt8(ascii: "p") else { continue }
            let path = fields[5].drop { $0 == " " }
            guard path.first == "/", path == exe || isSharedObject(path) else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let lo = UInt(bounds[0], radix: 16), let hi = UInt(bounds[1], radix: 16), lo < hi
            else { continue }
            result.append(Mapping(start: lo, end: hi))
        }
        return result
    }

    /// `libc.so.6`, `libsqlite3.so.0.8.6`, `ld-linux-x86-64.so.2`,
    /// `libfoo.so`: a name ending in `.so` and version numbers, if any.
    static func isSharedObject(_ path: Substring) -> Bool {
        let name = path.split(separator: "/").last ?? path
        guard let range = name.range(of: ".so") else { return false }
        let version = name[range.upperBound...]
        return version.isEmpty
            || (version.first == "." && version.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
                .allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
    }

    /// Runs of pages (first page index, count) that are present and still
    /// the file's own, from a mapping's `pagemap` entries.
    static func releasable(_ entries: UnsafeBufferPointer<UInt64>) -> [(first: Int, count: Int)] {
        var runs: [(first: Int, count: Int)] = []
        var first = -1
        for (i, entry) in entries.enumerated() {
            let present = entry >> 63 & 1 == 1
            let swapped = entry >> 62 & 1 == 1
            let filePage = entry >> 61 & 1 == 1
            let ok = present && !swapped && filePage
            if ok, first < 0 { first = i }
            if !ok, first >= 0 {
                runs.append((first, i - first))
                first = -1
            }
        }
        if first >= 0 { runs.append((first, entries.count - first)) }
        return runs
    }

    /// Releases every such page of this process; returns how many bytes
    /// were released (0 where `/proc` cannot be read: it is only a saving).
    /// Never inlined: the code-layout profile (`Tools/order.sh`) splits the
    /// idle client's run at its first call, by this name.
    @inline(never) @discardableResult
    public static func release() -> Int {
        #if os(Linux)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0, let maps = readAll("/proc/self/maps") else { return 0 }
        var link = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &link, link.count - 1)
        guard length > 0 else { return 0 }
        let exe = String(decoding: link[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return 0 }
        defer { close(pagemap) }
        var released = 0
        var entries: [UInt64] = []
        for mapping in candidates(maps: maps[...], exe: exe) {
            let pages = Int(mapping.end - mapping.start) / page
            entries = [UInt64](repeating: 0, count: pages)
            let want = pages * 8
            let got = entries.withUnsafeMutableBytes { raw in
                pread(pagemap, raw.baseAddress, want, off_t(Int(mapping.start) / page * 8))
            }
            guard got == want else { continue }
            let runs = entries.withUnsafeBufferPointer { releasable($0) }
            for run in runs {
                let address = UnsafeMutableRawPointer(bitPattern: Int(mapping.start) + run.first * page)
                if madvise(address, run.count * page, MADV_DONTNEED) == 0 { released += run.count * page }
            }
        }
        return released
        #else
        return 0
        #endif
    }

    /// A small `/proc` file, read whole (its size is not known up front).
    /// Not `FileManager.contents(atPath:)`: with it, the test process's own
    /// mapping near the end of its long maps was never released (what came
    /// back did not hold it).
    private static func readAll(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
            if bytes.count > 16 << 20 { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

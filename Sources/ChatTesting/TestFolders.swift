import Foundation
import Synchronization

/// Folders a test process makes under the temporary directory, removed when
/// it exits. Not at the end of the test that made one: the object that made
/// it (a fake server, a store) may be released before the test's last line
/// while a session still writes there. Without this, every `make test` left
/// about 300 stores and server folders behind.
public enum TestFolders {
    private static let made = Mutex<[URL]>([])
    private static let removedAtExit: Void = { atexit { TestFolders.removeAll() } }()

    /// A new folder's URL under the temporary directory, `prefix-UUID`
    /// (not created: the caller's code makes what it needs in it).
    public static func make(_ prefix: String) -> URL {
        _ = removedAtExit
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        made.withLock { $0.append(url) }
        return url
    }

    /// The same, made (empty) on disk, for a caller that writes files into it.
    public static func folder(_ prefix: String) -> URL {
        let url = make(prefix)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func removeAll() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}

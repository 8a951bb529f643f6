import ChatCore
import Foundation

/// Where received files go and how they are written: into
/// `$XDG_DOWNLOAD_DIR` (else `~/Downloads`), under a safe base name of the
/// name the sender gave, never over an existing file (`name (1).ext`).
public enum Downloads {
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_DOWNLOAD_DIR"], xdg.hasPrefix("/") { return URL(fileURLWithPath: xdg, isDirectory: true) }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent("Downloads", isDirectory: true)
    }

    /// Writes `data` as a new file in `directory` (made if missing) and
    /// returns its path. The name is reduced to a safe base name first; a
    /// file that exists, or appears meanwhile, is never replaced.
    public static func save(_ data: Data, name: String, in directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for _ in 0..<1000 {
            let target = SafeFileName.unused(name, in: directory)
            let fd = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }  // taken between the check and the create
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            do {
                try handle.write(contentsOf: data)
                try handle.close()
            } catch {
                try? FileManager.default.removeItem(at: target)  // no half-written file (a full disk)
                throw error
            }
            return target
        }
        throw POSIXError(.EEXIST)
    }
}

import Foundation

/// Where an export's bytes go, buffered: standard output, or a file that
/// appears whole or not at all. A file is written under a temporary name
/// in its own folder (0600, created anew, never through a symlink) and
/// renamed over `file` by `finish()`; `abandon()` removes it.
final class ExportOutput {
    private let handle: FileHandle
    private let file: URL?
    private let temporary: URL?
    private var buffer = Data()
    private static let flushAt = 1 << 16

    /// Standard output when `file` is nil.
    init(file: URL?) throws {
        self.file = file
        guard let file else {
            handle = FileHandle.standardOutput
            temporary = nil
            return
        }
        let folder = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temp = folder.appendingPathComponent(".tongban-export-\(UUID().uuidString.lowercased()).part")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        temporary = temp
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushAt { try flush() }
    }

    func write(_ data: Data) throws {
        if buffer.count + data.count < Self.flushAt {
            buffer.append(data)
            return
        }
        try flush()
        try handle.write(contentsOf: data)
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Everything written; the file takes its name.
    func finish() throws {
        try flush()
        guard let file, let temporary else { return }
        try handle.close()
        guard rename(temporary.path, file.path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(code)
        }
    }

    /// Gives up: a file is removed (the old one, if any, stays as it was).
    func abandon() {
        guard let temporary else { return }
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}

import ChatCore
import ChatSync
import Foundation

/// Files (`📎 name  1.2 MB`): Enter saves one into the downloads folder,
/// `o` saves it and opens it with the viewer.
extension ChatApp {
    /// Saves the file of `m` and says where; nil (with the reason in the
    /// status line) when it could not be fetched or written.
    @discardableResult
    func saveFile(_ m: ChatMessage) async -> URL? {
        guard case .file(let p) = m.content, !m.isRecalled else { return nil }
        guard let cached = await localFile(key: p.objectKey, url: p.url, expireAt: p.expireAt) else { return nil }
        do {
            let saved = try Downloads.save(try Data(contentsOf: cached), name: p.name, in: downloadsDirectory)
            status = L.string("ui.fileSaved", ["path": saved.path])
            return saved
        } catch {
            status = L.string("ui.fileSaveFailed", ["reason": "\(error)"])
            return nil
        }
    }

    func openFile(_ m: ChatMessage) async {
        if let saved = await saveFile(m) { openInViewer(saved) }
    }

    /// `/file PATH`: any readable file.
    func sendFile(_ path: String) async {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
              FileManager.default.isReadableFile(atPath: path) else {
            status = L.string("ui.fileUnreadable", ["path": path])
            return
        }
        await chat?.sendFile(path: path)
    }
}

import ChatCore
import ChatMedia
import ChatSync
import Foundation

/// `/file PATH` (`FileKind`).
extension OutgoingKind {
    /// Any file, uploaded as bytes (`chat_file`) under its safe base name.
    public static let file = OutgoingKind(name: "file", takes: .restOfLine) { paths, _ in
        let path = paths[0]
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
              FileManager.default.isReadableFile(atPath: path) else { throw OutgoingFailure.unreadable(path) }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        // A placeholder no file name holds by chance: the upload's key replaces it in the payload.
        let key = UploadPlaceholder.unique()
        return Outgoing(content: .file(FilePayload(objectKey: key, name: SafeFileName.base((path as NSString).lastPathComponent),
                                                            size: size)),
                        uploads: [upload(path, "application/octet-stream", "chat_file", key)])
    }
}

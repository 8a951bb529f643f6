import Foundation

/// What a queued media message names its files by until they are uploaded:
/// the upload's objectKey replaces it in the payload before the message is
/// sent, and a bubble that still shows one is uploading. No objectKey the
/// server makes starts with "@".
public enum UploadPlaceholder {
    static let prefix = "@upload"

    /// The `index`th file of a message (`@upload0`, `@upload1`, …).
    public static func numbered(_ index: Int) -> String { prefix + String(index) }

    /// One no file name holds by chance (a file's payload carries its name).
    public static func unique() -> String { prefix + "-" + UUID().uuidString }

    public static func isPlaceholder(_ key: String?) -> Bool { key?.hasPrefix(prefix) ?? false }
}

/// File extensions of the picture types the server accepts.
public enum MediaType {
    public static let imageExtensions = ["image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"]

    /// The extension a file of `contentType` is stored under (`bin` for others).
    public static func fileExtension(for contentType: String) -> String { imageExtensions[contentType] ?? "bin" }
}

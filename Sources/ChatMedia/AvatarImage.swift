import Foundation

/// A profile or group picture as the server keeps it (PROTOCOL.md v3):
/// at most 256×256, JPEG, with the file's metadata (GPS, camera, EXIF
/// orientation already applied) dropped by the re-encoding.
public enum AvatarImage {
    public static let maxSide = 256
    /// A larger file is refused before it is decoded.
    public static let maxFileBytes = 20 * 1024 * 1024

    public static func prepare(path: String) throws -> Data {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxFileBytes else {
            throw ImageCodec.Failure(description: "the picture is larger than 20 MiB")
        }
        return try prepare(Data(contentsOf: url))
    }

    public static func prepare(_ data: Data) throws -> Data {
        try ImageCodec.jpeg(data, quality: 85, maxSide: maxSide).data
    }
}

import ChatCore
import ChatMedia
import ChatSync
import Foundation

/// Pictures from files: `/image`, `/flash`, `/multi` (`ImageKind`, `FlashImageKind`, `MultiImageKind`).
extension OutgoingKind {
    /// The most pictures one multi-image message holds.
    public static let maxPictures = 9

    /// One picture (JPEG, PNG, GIF, WebP; re-encoded as JPEG over the upload limit).
    public static let image = OutgoingKind(name: "image", takes: .paths(max: 1)) { paths, write in
        let p = try OutgoingMedia.image(at: paths[0], writeUpload: write), key = UploadPlaceholder.numbered(0)
        return Outgoing(content: .image(ImagePayload(objectKey: key, w: Double(p.width), h: Double(p.height))),
                        uploads: [upload(p.path, p.contentType, "chat_image", key)])
    }

    /// A picture viewable once.
    public static let flash = OutgoingKind(name: "flash", takes: .paths(max: 1)) { paths, write in
        let p = try OutgoingMedia.image(at: paths[0], writeUpload: write), key = UploadPlaceholder.numbered(0)
        return Outgoing(content: .flashImage(FlashImagePayload(objectKey: key)), uploads: [upload(p.path, p.contentType, "chat_image", key)])
    }

    /// Up to nine pictures in one message, in order.
    public static let multi = OutgoingKind(name: "multi", takes: .paths(max: maxPictures)) { paths, write in
        guard paths.count <= maxPictures else { throw OutgoingFailure.tooMany(command: "/multi", max: maxPictures) }
        let uploads = try paths.enumerated().map { i, path in
            let p = try OutgoingMedia.image(at: path, writeUpload: write)
            return upload(p.path, p.contentType, "chat_image", UploadPlaceholder.numbered(i))
        }
        return Outgoing(content: .multiImage(MultiImagePayload(multiObjectKeys: uploads.map(\.placeholder))), uploads: uploads)
    }
}

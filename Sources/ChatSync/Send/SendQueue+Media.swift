import ChatCore
import ChatStore
import Foundation

/// Pictures and voice messages as the outbox takes them: the payload names
/// each file by a placeholder (`@upload0`, `@upload1`, …) that the upload's
/// objectKey replaces before the message is sent. The files are expected
/// to be checked already (`OutgoingMedia` in ChatMedia does that).
extension SendQueue {
    /// The most pictures one multi-image message holds.
    public static let maxImagesPerMessage = 9

    /// One picture, or a flash image (viewable once) when `isFlash`.
    @discardableResult
    public func enqueueImage(path: String, contentType: String, width: Double? = nil, height: Double? = nil, isFlash: Bool = false,
                             to conversationId: String, receiveId: String? = nil) throws -> MessageRecord {
        let placeholder = UploadPlaceholder.numbered(0)
        let content: MessageContent = isFlash
            ? .flashImage(FlashImagePayload(objectKey: placeholder))
            : .image(ImagePayload(objectKey: placeholder, w: width, h: height))
        return try enqueue(content, to: conversationId, receiveId: receiveId,
                           uploads: [.init(path: path, contentType: contentType, kind: "chat_image", placeholder: placeholder)])
    }

    /// Several pictures in one message, in order; past `maxImagesPerMessage`
    /// they are left out.
    @discardableResult
    public func enqueueImages(_ files: [(path: String, contentType: String)], to conversationId: String,
                              receiveId: String? = nil) throws -> MessageRecord {
        guard !files.isEmpty else { throw APIError.badResponse("a multi-image message needs at least one picture") }
        let uploads = files.prefix(Self.maxImagesPerMessage).enumerated().map { i, f in
            PendingUpload(path: f.path, contentType: f.contentType, kind: "chat_image", placeholder: UploadPlaceholder.numbered(i))
        }
        return try enqueue(.multiImage(MultiImagePayload(multiObjectKeys: uploads.map(\.placeholder))), to: conversationId,
                           receiveId: receiveId, uploads: uploads)
    }

    /// A voice message of `durationSec` seconds.
    @discardableResult
    public func enqueueVoice(path: String, contentType: String, durationSec: Int, to conversationId: String,
                             receiveId: String? = nil) throws -> MessageRecord {
        let placeholder = UploadPlaceholder.numbered(0)
        return try enqueue(.audio(AudioPayload(objectKey: placeholder, durationSec: durationSec)), to: conversationId,
                           receiveId: receiveId,
                           uploads: [.init(path: path, contentType: contentType, kind: "chat_audio", placeholder: placeholder)])
    }
}

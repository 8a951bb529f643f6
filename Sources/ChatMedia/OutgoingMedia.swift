import ChatCore
import Foundation

/// A picture or voice file the user picked, checked and made ready for the
/// outbox (the kinds that send files, `OutgoingKinds` in ChatViewModels).
/// One place for `tongban send` and the full-screen client, so both accept
/// and prepare the same files.
public enum OutgoingMedia {
    /// A picture prepared for upload, in a file of its own.
    public struct Image: Sendable, Equatable {
        public var path: String
        public var contentType: String
        public var width: Int
        public var height: Int

        public init(path: String, contentType: String, width: Int, height: Int) {
            self.path = path; self.contentType = contentType; self.width = width; self.height = height
        }
    }

    /// A voice file, sent as it is from where it is.
    public struct Voice: Sendable, Equatable {
        public var path: String
        public var contentType: String
        /// 0 when the file's header does not say.
        public var durationSec: Int

        public init(path: String, contentType: String, durationSec: Int) {
            self.path = path; self.contentType = contentType; self.durationSec = durationSec
        }
    }

    /// Checks and prepares the picture at `path` (`ImageCodec.prepareFile`:
    /// re-encoded as JPEG when over the upload limit, camera metadata
    /// removed) and writes the result through `writeUpload(bytes, ext)`,
    /// which returns the file it wrote: `MediaCacheService.pendingUploadFile`
    /// or the chat view model's `newUploadFile`. The prepared copy, not the
    /// user's file, is what the outbox uploads, so the user may move or edit
    /// theirs meanwhile.
    public static func image(at path: String, writeUpload: (_ data: Data, _ ext: String) throws -> URL) throws -> Image {
        let prepared = try ImageCodec.prepareFile(path: path)
        let file = try writeUpload(prepared.data, MediaType.fileExtension(for: prepared.contentType))
        return Image(path: file.path, contentType: prepared.contentType, width: prepared.width, height: prepared.height)
    }

    /// The voice file at `path`, checked by its bytes (WAV, MP3, OGG, M4A);
    /// `MediaProbe.Failure.unsupported` for anything else.
    public static func voice(at path: String) throws -> Voice {
        let probe = try MediaProbe.probe(path: path)
        guard probe.kind == "chat_audio" else { throw MediaProbe.Failure.unsupported(path) }
        return Voice(path: path, contentType: probe.contentType, durationSec: probe.durationSec ?? 0)
    }
}

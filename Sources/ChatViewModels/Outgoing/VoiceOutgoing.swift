import ChatCore
import ChatMedia
import ChatSync
import Foundation

/// `/voice PATH` (`AudioKind`); `/rec` records into the same.
extension OutgoingKind {
    /// A voice file (WAV, MP3, OGG, M4A), sent as it is.
    public static let voice = OutgoingKind(name: "voice", takes: .paths(max: 1)) { paths, _ in
        let v = try OutgoingMedia.voice(at: paths[0]), key = UploadPlaceholder.numbered(0)
        return Outgoing(content: .audio(AudioPayload(objectKey: key, durationSec: v.durationSec)),
                        uploads: [upload(v.path, v.contentType, "chat_audio", key)])
    }
}

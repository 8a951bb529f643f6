// Fuzzes MediaProbe.probe(_:), the magic-number and header reader the client
// runs on a file before it uploads it (arbitrary bytes: the header walks for
// JPEG, WebP, WAV, Ogg, MP4 and MP3 index into them).
// Asserted: it never traps; a result is consistent (an image/* type is a
// `chat_image`, an audio/* type a `chat_audio`, sizes and durations not
// negative); and the server accepts what the client sends: the type and kind
// the probe names pass the server's own check (MediaStore.imageTypes /
// audioTypes / matches, copied verbatim from Sources/ChatServer/MediaStore.swift
// by build.sh into ServerMediaCheck), or every such upload would get 415.
import ChatCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let p = MediaProbe.probe(data) else { return 0 }
    let table: [String: String]
    switch p.kind {
    case "chat_image":
        table = ServerMediaCheck.imageTypes
        require(p.durationSec == nil, "an image with a duration: \(p)")
    case "chat_audio":
        table = ServerMediaCheck.audioTypes
        require(p.width == nil && p.height == nil, "audio with a picture size: \(p)")
    default:
        require(false, "unknown upload kind: \(p)")
        return 0
    }
    require(table[p.contentType] != nil, "the server refuses Content-Type \(p.contentType) for \(p.kind)")
    require(ServerMediaCheck.matches(type: p.contentType, bytes: data),
            "the server's magic-number check refuses bytes the probe calls \(p.contentType)")
    require((p.width ?? 0) >= 0 && (p.height ?? 0) >= 0 && (p.durationSec ?? 0) >= 0, "negative size or duration: \(p)")
    return 0
}

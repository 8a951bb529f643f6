// Fuzzes TerminalSanitizer on arbitrary text (the input decoded lossily, as
// any String from the network is valid Unicode).
// sanitize: its doc promises that the output has no ESC sequences, no C0
// controls (TAB as a space, LF only with keepNewlines), no DEL, no C1, no
// bidi overrides/embeddings/isolates/marks. Also asserted: it is idempotent,
// since every replacement it makes (space, Control Pictures, U+FFFD, ¦) is
// itself left alone: sanitising twice must not change what the screen shows.
// SafeFileName.base: "a safe base name: no directories, no `..`, no
// controls, no bidi, no leading dot, at most 255 bytes" (never empty: the fallback).
import ChatCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for keep in [false, true] {
        let once = TerminalSanitizer.sanitize(input, keepNewlines: keep)
        requireTerminalSafe(once, keepNewlines: keep, from: input)
        let twice = TerminalSanitizer.sanitize(once, keepNewlines: keep)
        require(twice == once, "sanitize is not idempotent (keepNewlines: \(keep))\n  once:  \(shown(once))\n  twice: \(shown(twice))")
    }

    let name = SafeFileName.base(input)
    require(!name.isEmpty, "empty base name for \(shown(input))")
    require(name.utf8.count <= SafeFileName.maxBytes, "base name of \(name.utf8.count) bytes")
    require(!name.contains("/") && !name.contains("\\"), "base name with a directory: \(shown(name))")
    // By scalar: ".\u{301}x" is a hidden file too, though its first Character is not ".".
    require(name.unicodeScalars.first != ".", "base name with a leading dot: \(shown(name)) from \(shown(input))")
    require(name != "..", "base name `..` from \(shown(input))")
    for s in name.unicodeScalars {
        let v = s.value
        require(v >= 0x20 && v != 0x7F && !(0x80...0x9F).contains(v) && !(0x202A...0x202E).contains(v)
                && !(0x2066...0x2069).contains(v), String(format: "base name holds U+%04X: ", v) + shown(name))
    }
    return 0
}

// Fuzzes TerminalUI's KeyDecoder with arbitrary wget_wch results: code
// points (any UInt32: C0, C1, surrogates, past U+10FFFF), ncurses key codes
// (the known ones, the paste markers, any other), timeouts and batch ends.
// Asserted, from KeyDecoder's and Key's doc comments:
// - every key is well formed: .char/.alt carry printable graphemes, .ctrl
//   one of the documented characters, .paste only printable text, "\n", "\t";
// - nothing stays pending for ever: after enough timeouts (pasteTimeoutPolls,
//   "a lost marker cannot swallow the keyboard") and endOfBatch, !isPending;
// - typed text is never lost or reordered: printable code points alone come
//   out as .chars that spell exactly them;
// - a bracketed paste of any characters comes out as one .paste with CR and
//   CRLF as "\n" and other controls except tab dropped.
import Foundation
import TerminalUI

private typealias Code = KeyDecoder.Code
private let knownCodes: [Int32] = [Code.up, Code.down, Code.left, Code.right, Code.home, Code.end, Code.pageUp,
                                   Code.pageDown, Code.backspace, Code.delete, Code.backTab, Code.enter, Code.resize,
                                   Code.find, Code.select, Code.pasteBegin, Code.pasteEnd]

private enum Step { case input(KeyDecoder.Input), endOfBatch }

/// Bytes to steps: 0xF8 timeout, 0xF9 end of batch, 0xFA a known key code,
/// 0xFB any 16-bit key code, 0xFC a 24-bit and 0xFD a 32-bit code point;
/// a valid UTF-8 sequence is its scalar; any other byte is that code point.
private func steps(_ b: UnsafeBufferPointer<UInt8>) -> [Step] {
    var out: [Step] = []
    var i = 0
    func next() -> UInt32 { defer { i += 1 }; return i < b.count ? UInt32(b[i]) : 0 }
    while i < b.count {
        let c = b[i]
        i += 1
        switch c {
        case 0xF8: out.append(.input(.timeout))
        case 0xF9: out.append(.endOfBatch)
        case 0xFA: out.append(.input(.keyCode(knownCodes[Int(next()) % knownCodes.count])))
        case 0xFB: out.append(.input(.keyCode(Int32(next() << 8 | next()))))
        case 0xFC: out.append(.input(.char(next() << 16 | next() << 8 | next())))
        case 0xFD: out.append(.input(.char(next() << 24 | next() << 16 | next() << 8 | next())))
        case 0xC0...0xF4:
            let len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2
            let start = i - 1
            if start + len <= b.count,
               let s = String(validating: UnsafeBufferPointer(rebasing: b[start..<start + len]), as: UTF8.self),
               s.unicodeScalars.count == 1, let scalar = s.unicodeScalars.first {
                out.append(.input(.char(scalar.value)))
                i = start + len
            } else {
                out.append(.input(.char(UInt32(c))))
            }
        default: out.append(.input(.char(UInt32(c))))
        }
    }
    return out
}

private func isPrintable(_ v: UInt32) -> Bool { v >= 0x20 && v != 0x7F && !(0x80...0x9F).contains(v) && Unicode.Scalar(v) != nil }

private func requireWellFormed(_ key: Key) {
    switch key {
    case .char(let c), .alt(let c):
        require(c.unicodeScalars.allSatisfy { isPrintable($0.value) }, "unprintable \(key)")
    case .ctrl(let c):
        require(("a"..."z").contains(c) || [" ", "\\", "]", "^", "_"].contains(c), "undocumented \(key)")
    case .paste(let s):
        require(s.unicodeScalars.allSatisfy { isPrintable($0.value) || $0 == "\n" || $0 == "\t" }, "control in \(key)")
    default: break
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let buffer = UnsafeBufferPointer(start: bytes, count: count)
    let pasteTimeout = 1 + Int(buffer[0] % 8)
    let script = steps(UnsafeBufferPointer(rebasing: buffer[1...]))

    // 1. Anything at all.
    var d = KeyDecoder(pasteTimeoutPolls: pasteTimeout)
    var keys: [Key] = []
    for step in script {
        switch step {
        case .input(let input): keys += d.feed(input)
        case .endOfBatch: keys += d.endOfBatch()
        }
    }
    for _ in 0..<(pasteTimeout + 2) { keys += d.feed(.timeout) }
    keys += d.endOfBatch()
    keys.forEach(requireWellFormed)
    require(!d.isPending, "still pending after \(pasteTimeout + 2) timeouts and endOfBatch")

    let chars: [UInt32] = script.compactMap { if case .input(.char(let v)) = $0 { return v } else { return nil } }

    // 2. Typing: the printable code points alone, in one batch.
    let typed = chars.filter(isPrintable)
    var t = KeyDecoder(pasteTimeoutPolls: pasteTimeout)
    let typedKeys = t.decode(typed.map { .char($0) })
    var spelled = ""
    for key in typedKeys {
        guard case .char(let c) = key else { require(false, "typing \(typed) gave \(key)"); return 0 }
        spelled.append(c)
    }
    let expected = String(String.UnicodeScalarView(typed.compactMap(Unicode.Scalar.init)))
    require(spelled.unicodeScalars.elementsEqual(expected.unicodeScalars), "typed \(shown(expected)), got \(typedKeys)")

    // 3. A bracketed paste of the characters (ESC left out: it may start the end marker).
    let inner = chars.filter { $0 != 0x1B }
    var expectedPaste = String.UnicodeScalarView()
    var lastWasCR = false
    for v in inner {
        if v == 0x0D { expectedPaste.append("\n") }
        else if v == 0x0A { if !lastWasCR { expectedPaste.append("\n") } }
        else if v == 0x09 { expectedPaste.append("\t") }
        else if isPrintable(v) { expectedPaste.append(Unicode.Scalar(v)!) }
        lastWasCR = v == 0x0D
    }
    for raw in [false, true] {
        var p = KeyDecoder(pasteTimeoutPolls: pasteTimeout)
        let begin: [KeyDecoder.Input] = raw ? "\u{1B}[200~".unicodeScalars.map { .char($0.value) } : [.keyCode(Code.pasteBegin)]
        let end: [KeyDecoder.Input] = raw ? "\u{1B}[201~".unicodeScalars.map { .char($0.value) } : [.keyCode(Code.pasteEnd)]
        let pasted = p.decode(begin + inner.map { .char($0) } + end)
        require(pasted == [.paste(String(expectedPaste))],
                "paste (raw markers: \(raw)) of \(inner) gave \(pasted), expected \(shown(String(expectedPaste)))")
    }
    return 0
}

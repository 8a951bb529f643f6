// Helpers shared by every harness (no project module needed).
import Foundation

/// A broken promise: prints what was expected and aborts, which libFuzzer
/// reports as a crash and saves the input for. (Swift's own `precondition`
/// drops its message under -O.)
func require(_ ok: @autoclosure () -> Bool, _ what: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if ok() { return }
    let text = "\n*** FUZZ PROPERTY FAILED at \(file):\(line): \(what())\n"
    FileHandle.standardError.write(Data(text.utf8))
    abort()
}

/// Up to `limit` characters of `s` for a failure message, escaped so a
/// control character in it does not garble the log.
func shown(_ s: String, limit: Int = 400) -> String {
    var out = ""
    for scalar in s.unicodeScalars.prefix(limit) { out += scalar.escaped(asASCII: true) }
    return s.unicodeScalars.count > limit ? out + "…" : out
}

import Foundation

/// File names that came over the network, made safe before they touch the
/// disk: a name like `../../.bashrc`, `a/b`, one with a NUL, control or
/// bidi characters, or 300 bytes long must never leave the chosen folder,
/// hide itself, overwrite a file or fool the eye.
public enum SafeFileName {
    /// The longest name most file systems take, in bytes.
    public static let maxBytes = 255

    /// PROTOCOL.md's rule for a `file` payload's `name`: a base name (no
    /// `/`), no NUL, 1-255 bytes, not `.` or `..`.
    public static func isProtocolName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxBytes && !name.contains("/") && !name.utf8.contains(0)
            && name != "." && name != ".."
    }

    /// A safe base name for `name`: its last path component (`/` and `\`
    /// both separate), without control, format (bidi) or NUL characters,
    /// `:*?"<>|` as `_` (names other systems refuse), without leading or
    /// trailing dots and blanks, at most 255 bytes with its extension kept;
    /// `fallback` when nothing is left.
    public static func base(_ name: String, fallback: String = "file") -> String {
        // By scalar: a prepended mark (U+0602) would join a following "/" into one Character.
        let last = name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last
            .map { String(String.UnicodeScalarView($0)) } ?? ""
        var scalars = String.UnicodeScalarView()
        for s in last.unicodeScalars {
            let v = s.value
            if v < 0x20 || (0x7F...0x9F).contains(v) || s.properties.generalCategory == .format
                || (0x2028...0x2029).contains(v) {
                continue
            }
            scalars.append(":*?\"<>|".unicodeScalars.contains(s) ? "_" : s)
        }
        // By scalar, so a combining mark cannot hide a leading dot (".\u{301}").
        func trimmable(_ s: Unicode.Scalar) -> Bool { s == "." || s.properties.isWhitespace }
        while let first = scalars.first, trimmable(first) { scalars.removeFirst() }
        while let last = scalars.last, trimmable(last) { scalars.removeLast() }
        let cleaned = String(scalars)
        // One character longer than the limit is cut whole: nothing, or only ".ext", may be left.
        let cut = truncated(cleaned)
        return cut.isEmpty || cut.unicodeScalars.first == "." ? fallback : cut
    }

    /// Cuts `name` to `maxBytes` bytes on a character boundary, keeping a
    /// short extension.
    static func truncated(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let ext = (name as NSString).pathExtension
        let keep = ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
        var stem = keep.isEmpty ? name : String(name.dropLast(keep.count))
        while stem.utf8.count + keep.utf8.count > maxBytes { stem.removeLast() }
        return stem + keep
    }

    /// A path in `directory` for `name` that names no existing file:
    /// `name`, else `name (1).ext`, `name (2).ext`, ...
    public static func unused(_ name: String, in directory: URL, exists: (String) -> Bool = {
        FileManager.default.fileExists(atPath: $0)
    }) -> URL {
        let safe = base(name)
        var candidate = directory.appendingPathComponent(safe)
        guard exists(candidate.path) else { return candidate }
        let ext = (safe as NSString).pathExtension
        let stem = ext.isEmpty ? safe : String(safe.dropLast(ext.count + 1))
        for n in 1... {
            let suffix = " (\(n))" + (ext.isEmpty ? "" : "." + ext)
            var s = stem
            while s.utf8.count + suffix.utf8.count > maxBytes { s.removeLast() }
            candidate = directory.appendingPathComponent(s + suffix)
            if !exists(candidate.path) { return candidate }
        }
        return candidate
    }
}

/// A file's size as people read it: `512 B`, `1.2 KB`, `3.4 MB`, `1.0 GB`
/// (decimal units, one decimal).
public enum FileSizeText {
    public static func format(_ bytes: Int) -> String {
        let b = max(0, bytes)
        if b < 1000 { return "\(b) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(b) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }
}

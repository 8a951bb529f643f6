import ChatViewModels
import Foundation

/// Tab completion of file paths after a command that sends files (`OutgoingKinds`: `/image`, `/file`, …).
enum PathCompletion {
    struct Result: Equatable {
        var text: String
        var choices: [String]
    }

    static let commands = OutgoingKinds.all.map(\.command)

    /// Whether Tab completes a path in `text` (a media command and a space).
    static func applies(to text: String) -> Bool {
        guard let cmd = text.split(separator: " ").first.map(String.init) else { return false }
        return commands.contains(cmd) && text.contains(" ")
    }

    /// The input with its last word completed as far as it is unambiguous,
    /// and the candidates; nil when the input is not a media command.
    static func complete(_ text: String, fileManager: FileManager = .default) -> Result? {
        guard applies(to: text) else { return nil }
        let word = text.hasSuffix(" ") ? "" : String(text.split(separator: " ").last ?? "")
        let head = String(text.dropLast(word.count))
        let expanded = (word as NSString).expandingTildeInPath
        let dir: String, prefix: String
        if word.isEmpty {
            dir = "."; prefix = ""
        } else if expanded.hasSuffix("/") {
            dir = expanded; prefix = ""
        } else {
            let d = (expanded as NSString).deletingLastPathComponent
            dir = d.isEmpty ? "." : d
            prefix = (expanded as NSString).lastPathComponent
        }
        guard let entries = try? fileManager.contentsOfDirectory(atPath: dir) else { return Result(text: text, choices: []) }
        let matches = entries.filter { $0.hasPrefix(prefix) && !$0.hasPrefix(".") || (prefix.hasPrefix(".") && $0.hasPrefix(prefix)) }.sorted()
        guard !matches.isEmpty else { return Result(text: text, choices: []) }
        var common = matches[0]
        for m in matches.dropFirst() { while !m.hasPrefix(common) { common.removeLast() } }
        let base = word.isEmpty ? "" : (word.hasSuffix("/") ? word : String(word.dropLast(prefix.count)))
        var completed = base + common
        var isDir: ObjCBool = false
        let full = (dir == "." && !word.hasPrefix("./") ? common : (dir as NSString).appendingPathComponent(common))
        if matches.count == 1 {
            if fileManager.fileExists(atPath: full, isDirectory: &isDir), isDir.boolValue { completed += "/" } else { completed += " " }
        }
        return Result(text: head + completed, choices: matches.count > 1 ? matches : [])
    }
}

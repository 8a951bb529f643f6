import ChatCore
import ChatMedia
import ChatSync
import Foundation

/// How a kind of message is sent from files: the input line's command
/// (`/image PATH`), `tongban send --image PATH`, and what the outbox keeps
/// (the payload, each file named by the placeholder its upload replaces).
/// One entry per sendable kind, after its `Kinds/` file, listed once in
/// ``OutgoingKinds/all``; the full-screen client and the CLI both send
/// through it.
public struct OutgoingKind: Sendable {
    /// What follows the command.
    public enum Takes: Sendable, Equatable {
        /// One path, or up to `max` paths separated by spaces.
        case paths(max: Int)
        /// The rest of the line is one path (file names may hold spaces).
        case restOfLine
    }

    /// `image`: `/image` in the input line, `--image` for `tongban send`.
    public let name: String
    public let takes: Takes
    /// Checks and prepares the user's files, at least one (`outgoing`).
    let prepare: @Sendable (_ paths: [String], _ writeUpload: (Data, String) throws -> URL) throws -> Outgoing

    /// Checks and prepares the user's files (a picture is re-encoded into a
    /// file of its own through `writeUpload(bytes, ext)`, so the user may
    /// move or edit theirs meanwhile) and says what the outbox sends.
    public func outgoing(_ paths: [String], writeUpload: (Data, String) throws -> URL) throws -> Outgoing {
        guard !paths.isEmpty else { throw OutgoingFailure.missingPath(usage: usage) }
        return try prepare(paths, writeUpload)
    }

    /// `/image` as typed.
    public var command: String { "/" + name }
    /// `/image PATH`, shown when the path is missing.
    public var usage: String {
        switch takes {
        case .paths(let max) where max > 1: return command + " PATH…"
        default: return command + " PATH"
        }
    }
}

/// A message about to be queued: its content, and the files to upload first.
public struct Outgoing: Sendable, Equatable {
    public var content: MessageContent
    public var uploads: [SendQueue.PendingUpload]
}

/// A file that cannot be sent, in words the caller localises.
public enum OutgoingFailure: Error, Equatable {
    case missingPath(usage: String)
    case unreadable(String)
    case tooMany(command: String, max: Int)
}

extension OutgoingFailure {
    /// In the user's language.
    public func words(_ L: Localizer) -> String {
        switch self {
        case .missingPath(let usage): return usage
        case .unreadable(let path): return L.string("ui.fileUnreadable", ["path": path])
        case .tooMany(let command, let max): return L.string("ui.tooManyFiles", ["command": command, "max": String(max)])
        }
    }
}

public enum OutgoingKinds {
    public static let all: [OutgoingKind] = [.image, .flash, .multi, .voice, .file]

    public static func named(_ name: String) -> OutgoingKind? { all.first { $0.name == name } }

    /// The kind whose command starts `text` (`/image …`), if any.
    public static func command(in text: String) -> OutgoingKind? {
        guard let first = text.split(separator: " ", maxSplits: 1).first, first.hasPrefix("/") else { return nil }
        return named(String(first.dropFirst()))
    }

    /// The paths `kind` takes from what follows its command; empty when none.
    public static func paths(for kind: OutgoingKind, in text: String) -> [String] {
        let rest = String(text.dropFirst(kind.command.count)).trimmingCharacters(in: .whitespaces)
        switch kind.takes {
        case .restOfLine:
            return rest.isEmpty ? [] : [(rest as NSString).expandingTildeInPath]
        case .paths:
            return rest.split(separator: " ", omittingEmptySubsequences: true).map { (String($0) as NSString).expandingTildeInPath }
        }
    }
}

extension OutgoingKind {
    static func upload(_ path: String, _ type: String, _ kind: String, _ placeholder: String) -> SendQueue.PendingUpload {
        SendQueue.PendingUpload(path: path, contentType: type, kind: kind, placeholder: placeholder)
    }
}

import ChatCore
import Foundation

/// What an export is written as.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// `[2026-11-28 14:03] Alice: 你好`, with indented lines for replies,
    /// media, reactions and edits.
    case txt
    /// One JSON object (an ``ExportRecord``) per line.
    case jsonl
    /// One self-contained page: inline CSS, no scripts, nothing fetched
    /// from elsewhere; media linked beside it.
    case html

    public var fileExtension: String { rawValue }
}

/// How an export is made.
public struct ExportOptions: Sendable {
    public var format: ExportFormat
    /// The language of the words an export adds (summaries, "edited", ...).
    public var localizer: Localizer
    /// Times in txt and html at this fixed offset east of UTC; nil: the
    /// user's time zone. (jsonl times are UTC.)
    public var utcOffsetSeconds: Int?
    /// May ask the server: for the history the store lacks, and for media
    /// not in the cache. False: what this device has, only.
    public var online: Bool
    /// Saves pictures, voice messages and files beside the export and links
    /// them; false lists them by name only.
    public var saveMedia: Bool
    /// Secret chats are written decrypted: only when asked for.
    public var includeSecret: Bool
    /// Messages read from the store at a time.
    public var pageSize: Int

    public init(format: ExportFormat = .txt, localizer: Localizer = .current, utcOffsetSeconds: Int? = nil,
                online: Bool = true, saveMedia: Bool = true, includeSecret: Bool = false, pageSize: Int = 500) {
        self.format = format; self.localizer = localizer; self.utcOffsetSeconds = utcOffsetSeconds
        self.online = online; self.saveMedia = saveMedia; self.includeSecret = includeSecret
        self.pageSize = max(1, pageSize)
    }
}

/// What one conversation's export came to.
public struct ExportResult: Sendable, Hashable {
    public var messages = 0
    public var mediaSaved = 0
    /// Media that could not be had (offline, or gone from the server):
    /// listed without a link.
    public var mediaMissing = 0
    /// Media not saved because the export was not to a file, or was asked
    /// to list them only.
    public var mediaNotSaved = 0
    /// Messages of the conversation still not on this device afterwards.
    public var messagesMissing = 0
    /// Why filling the history from the server stopped short, if it did.
    public var fillFailure: String?
    public init() {}
}

/// One conversation of `exportAll`: where it went, or that it was skipped.
public struct ExportedConversation: Sendable, Hashable {
    public var conversationId: String
    public var title: String
    /// The file written; nil when skipped.
    public var file: URL?
    public var result: ExportResult?
    public var skippedAsSecret: Bool { file == nil }
    public init(conversationId: String, title: String, file: URL?, result: ExportResult?) {
        self.conversationId = conversationId; self.title = title; self.file = file; self.result = result
    }
}

public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A secret chat, without `includeSecret`.
    case secretChat(String)

    public var description: String {
        switch self {
        case .secretChat(let id): "\(id) is a secret chat; it is exported only when asked (includeSecret)"
        }
    }
}

/// Where an export's files go: names made from titles and ids that came
/// over the network, so always through `SafeFileName`.
public enum ExportPaths {
    /// `DIR/<title>-<conversation id>.<ext>` for `exportAll`: the id keeps
    /// two chats of the same title apart.
    public static func fileName(title: String, conversationId: String, format: ExportFormat) -> String {
        // A slash in a title is part of the name, not a folder.
        let flat = title.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\\", with: "_")
        var stem = SafeFileName.base(flat, fallback: "chat")
        while stem.utf8.count > 120 { stem.removeLast() }
        return SafeFileName.base("\(stem)-\(conversationId).\(format.fileExtension)", fallback: "chat.\(format.fileExtension)")
    }

    /// The folder, relative to the export file, that holds a conversation's media.
    public static func mediaFolder(conversationId: String) -> String {
        "media/" + SafeFileName.base(conversationId, fallback: "chat")
    }

    /// A media file's name in that folder: unique per message (its seq) and
    /// per picture of a multi-picture message (`index` from 1).
    public static func mediaFileName(seq: Int, index: Int?, name: String, kind: String) -> String {
        let prefix = index.map { "\(seq)-\($0)-" } ?? "\(seq)-"
        return SafeFileName.base(prefix + SafeFileName.base(name, fallback: kind), fallback: "\(seq)")
    }
}

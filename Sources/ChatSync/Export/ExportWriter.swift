import ChatCore
import Foundation

/// Writes records as text, one at a time, so a chat of millions of
/// messages is written as it is read: `header()`, then `entry(_:)` for
/// each record, oldest first, then `footer()` (``render(_:)`` does all
/// three for a list). Pure: no clock, no disk.
///
/// Everything in a record came over the network. In txt and html every
/// text is sanitised for a terminal (no escape sequences, visible bidi
/// controls); a message's line breaks are indented, so it cannot forge a
/// `[time] name:` row; html escapes `& < > " '` as well. jsonl keeps the
/// texts exactly, JSON-escaping what a terminal would act on.
public struct ExportWriter {
    public var format: ExportFormat
    public var title: String
    public var conversationId: String
    public var localizer: Localizer
    /// Times at this offset east of UTC; nil: the user's time zone.
    public var utcOffsetSeconds: Int?
    let encoder: JSONEncoder

    public init(format: ExportFormat, title: String, conversationId: String, localizer: Localizer = .current,
                utcOffsetSeconds: Int? = nil) {
        self.format = format; self.title = title; self.conversationId = conversationId
        self.localizer = localizer; self.utcOffsetSeconds = utcOffsetSeconds
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    public func header() -> String {
        switch format {
        case .txt: return "# \(TerminalSanitizer.oneLine(title)) (\(TerminalSanitizer.oneLine(conversationId)))\n"
        case .jsonl: return ""
        case .html: return htmlHeader()
        }
    }

    public func entry(_ record: ExportRecord) throws -> String {
        switch format {
        case .txt:
            return txtEntry(record)
        case .jsonl:
            let json = try encoder.encode(record)
            return TerminalSanitizer.terminalSafeJSON(String(decoding: json, as: UTF8.self)) + "\n"
        case .html:
            return htmlEntry(record)
        }
    }

    public func footer() -> String { format == .html ? htmlFooter : "" }

    /// The whole export of `records` at once.
    public func render(_ records: [ExportRecord]) throws -> String {
        var text = header()
        for r in records { text += try entry(r) }
        return text + footer()
    }

    // MARK: - Shared words

    func time(_ ms: Int) -> String { ExportTime.local(ms, utcOffsetSeconds: utcOffsetSeconds) }

    /// `↪ reply to Alice: 原话`, `↪ reply to the signal: …`.
    func replyLine(_ reply: ExportRecord.Reply) -> String {
        let said = reply.revoked ? localizer.string("ui.quoteRevoked") : MessageKind.flattenLines(reply.text ?? "")
        guard reply.clientMsgID != nil else { return localizer.string("export.replyToSignal", ["text": said]) }
        return localizer.string("export.replyTo", ["name": MessageKind.flattenLines(reply.sender?.name ?? ""), "text": said])
    }

    /// `👍 Bob, Carol`.
    func reactionLine(_ reaction: ExportRecord.Reaction) -> String {
        reaction.emoji + " " + reaction.people.map { MessageKind.flattenLines($0.name) }
            .joined(separator: localizer.string("group.listSeparator"))
    }

    func editedLine(_ record: ExportRecord) -> String? {
        record.editedAtMs.map { localizer.string("export.edited", ["time": time($0)]) }
    }

    func notSaved(_ media: ExportRecord.Media) -> String { localizer.string("export.notSaved", ["name": media.name]) }

    // MARK: - txt

    func txtEntry(_ r: ExportRecord) -> String {
        if r.notice { return "[\(time(r.timeMs))] — \(TerminalSanitizer.oneLine(r.text)) —\n" }
        var lines = ["[\(time(r.timeMs))] \(TerminalSanitizer.oneLine(r.sender.name)): \(indented(r.text))"]
        if let reply = r.reply { lines.append(Self.indent + TerminalSanitizer.oneLine(replyLine(reply))) }
        for item in r.forwarded ?? [] {
            let when = item.timeMs.map { "[\(time($0))] " } ?? ""
            let said = indented(item.text, by: Self.indent + "  ")
            lines.append("\(Self.indent)» \(when)\(TerminalSanitizer.oneLine(item.sender)): \(said)")
        }
        for m in r.media { lines.append(Self.indent + TerminalSanitizer.oneLine(m.path ?? notSaved(m))) }
        for reaction in r.reactions { lines.append(Self.indent + TerminalSanitizer.oneLine(reactionLine(reaction))) }
        if let edited = editedLine(r) { lines.append(Self.indent + TerminalSanitizer.oneLine(edited)) }
        return lines.joined(separator: "\n") + "\n"
    }

    static let indent = "    "

    /// Sanitised, each line break followed by `by`.
    func indented(_ text: String, by: String = ExportWriter.indent) -> String {
        let kept = TerminalSanitizer.sanitize(text, keepNewlines: true)
        // U+2028/2029 break lines in some viewers; they are line breaks here too.
        return kept.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\u{2028}" || $0 == "\u{2029}" })
            .joined(separator: "\n" + by)
    }
}

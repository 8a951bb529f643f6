import ChatCore
import Foundation

/// The html export: one page that needs nothing else — its CSS inline, no
/// script (and a policy that would refuse one), no font or picture from
/// elsewhere. Pictures are linked and shown from the media folder beside
/// the page, never embedded.
extension ExportWriter {
    func htmlHeader() -> String {
        let heading = html(title)
        return """
            <!DOCTYPE html>
            <html lang="\(localizer.language.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'">
            <title>\(heading)</title>
            <style>
            \(Self.css)
            </style>
            </head>
            <body>
            <header><h1>\(heading)</h1><p class="id">\(html(conversationId))</p></header>
            <main>

            """
    }

    var htmlFooter: String { "</main>\n</body>\n</html>\n" }

    func htmlEntry(_ r: ExportRecord) -> String {
        let when = "<time datetime=\"\(html(r.time))\">\(html(time(r.timeMs)))</time>"
        if r.notice { return "<p class=\"notice\">\(when) \(html(r.text))</p>\n" }
        var classes = r.isMe ? "msg me" : "msg"
        if r.revoked { classes += " revoked" }
        let who = r.sender.account.map { "\($0) · \(r.sender.id)" } ?? r.sender.id
        var s = "<article class=\"\(classes)\" id=\"m\(r.seq)\">\n"
        s += "<div class=\"meta\"><span class=\"who\" title=\"\(html(who))\">\(html(r.sender.name))</span> \(when)</div>\n"
        if let reply = r.reply {
            let line = html(replyLine(reply))
            // A reply to a message of this chat links to it.
            let body = reply.seq.map { "<a href=\"#m\($0)\">\(line)</a>" } ?? line
            s += "<blockquote class=\"reply\">\(body)</blockquote>\n"
        }
        s += "<div class=\"text\">\(linkedHTML(r.text))</div>\n"
        if let items = r.forwarded, !items.isEmpty {
            s += "<div class=\"fwd\">\n"
            for item in items {
                let at = item.timeMs.map { html(time($0)) + " " } ?? ""
                s += "<p><span class=\"when\">\(at)</span><b>\(html(item.sender))</b>: \(html(item.text))</p>\n"
            }
            s += "</div>\n"
        }
        for m in r.media { s += "<div class=\"media\">\(htmlMedia(m))</div>\n" }
        if !r.reactions.isEmpty {
            s += "<div class=\"reactions\">" + r.reactions.map { "<span>\(html(reactionLine($0)))</span>" }.joined(separator: " ") + "</div>\n"
        }
        if let edited = editedLine(r) { s += "<div class=\"edited\">\(html(edited))</div>\n" }
        return s + "</article>\n"
    }

    /// A picture shown and linked; voice and files linked; unsaved ones named.
    func htmlMedia(_ m: ExportRecord.Media) -> String {
        guard let path = m.path else { return "<span class=\"missing\">\(html(notSaved(m)))</span>" }
        let href = Self.escape(Self.percentEncoded(path))
        if m.kind == "image" {
            return "<a href=\"\(href)\"><img src=\"\(href)\" alt=\"\(html(m.name))\" loading=\"lazy\"></a>"
        }
        let icon = m.kind == "voice" ? "🔊" : "📎"
        return "<a href=\"\(href)\">\(icon) \(html(m.name))</a>"
    }

    /// Text for the page: sanitised as for a terminal, then escaped.
    func html(_ text: String) -> String { Self.escape(TerminalSanitizer.sanitize(text, keepNewlines: true)) }

    /// A message's text with its http, https and mailto links as links
    /// (the addresses `Links` finds hold no quote or angle bracket).
    func linkedHTML(_ text: String) -> String {
        let clean = TerminalSanitizer.sanitize(text, keepNewlines: true)
        var out = "", at = clean.startIndex
        for link in Links.find(in: clean) {
            out += Self.escape(String(clean[at..<link.range.lowerBound]))
            let url = Self.escape(link.url)
            out += "<a href=\"\(url)\" rel=\"noopener noreferrer\">\(url)</a>"
            at = link.range.upperBound
        }
        return out + Self.escape(String(clean[at...]))
    }

    /// `& < > " '` as entities. By scalar: a `<` followed by a combining
    /// mark is one Character, but still a `<` to a browser.
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// A relative path as a URL path: every byte but `A-Z a-z 0-9 - . _ ~ /`
    /// percent-encoded, so a `#`, `?` or `%` in a file name stays part of it.
    public static func percentEncoded(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += hex.count == 1 ? "%0" + hex : "%" + hex
            }
        }
        return out
    }

    static let css = """
        :root { color-scheme: light dark; --bg: #f4f4f6; --card: #ffffff; --me: #dcf5d0; --fg: #1d1d1f; --dim: #6e6e73; --line: #dcdce2; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #1c1c1e; --card: #2c2c2e; --me: #29452a; --fg: #f2f2f7; --dim: #a1a1a6; --line: #3a3a3c; }
        }
        body { margin: 0; background: var(--bg); color: var(--fg);
               font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; }
        header { padding: 16px 24px; border-bottom: 1px solid var(--line); }
        h1 { margin: 0; font-size: 20px; }
        .id { margin: 2px 0 0; color: var(--dim); font-size: 12px; }
        main { max-width: 760px; margin: 0 auto; padding: 12px 16px 32px; }
        .msg { background: var(--card); border-radius: 10px; padding: 6px 12px 8px; margin: 8px 48px 8px 0; }
        .msg.me { background: var(--me); margin: 8px 0 8px 48px; }
        .meta { color: var(--dim); font-size: 12px; }
        .who { font-weight: 600; color: var(--fg); margin-right: 6px; }
        .text, .fwd p { white-space: pre-wrap; overflow-wrap: anywhere; }
        .revoked .text { color: var(--dim); font-style: italic; }
        .reply { margin: 4px 0; padding: 0 8px; border-left: 3px solid var(--line); color: var(--dim); }
        .reply a { color: inherit; text-decoration: none; }
        .fwd { margin: 4px 0; padding: 2px 8px; border: 1px solid var(--line); border-radius: 6px; font-size: 13px; }
        .fwd p { margin: 2px 0; }
        .when { color: var(--dim); }
        .media img { display: block; max-width: 100%; max-height: 320px; margin-top: 4px; border-radius: 6px; }
        .media a { color: inherit; }
        .missing, .edited { color: var(--dim); font-size: 13px; }
        .reactions span { display: inline-block; margin: 4px 4px 0 0; padding: 0 8px; border: 1px solid var(--line); border-radius: 12px; font-size: 13px; }
        .notice { margin: 12px 0; color: var(--dim); font-size: 12px; text-align: center; }
        """
}

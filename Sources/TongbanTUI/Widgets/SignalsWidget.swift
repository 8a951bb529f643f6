import ChatCore
import Foundation
import TerminalUI

/// The signals page's lines (`SignalsView`): its tabs, the chosen tab's
/// list, and at the foot the line being typed or what the keys do.
enum SignalsWidget {
    static func lines(_ v: SignalsView, _ L: Localizer, now: Date, utcOffsetSeconds: Int?, rows: Int) -> [(String, Style)] {
        let names: [SignalsView.Tab: String] = [.feed: "ui.signals.tab.feed", .mine: "ui.signals.tab.mine", .inbox: "ui.signals.tab.inbox"]
        let tabs = SignalsView.Tab.allCases.map { t in
            let name = "\(t.rawValue + 1) " + L.string(names[t] ?? "")
            return t == v.tab ? "[" + name + "]" : " " + name + " "
        }.joined(separator: "  ")
        var out: [(String, Style)] = [(tabs, Theme.title), ("", Style())]
        var rowsOf: [String] = []
        let empty: String
        switch v.tab {
        case .feed:
            empty = "ui.signals.feedEmpty"
            rowsOf = (v.feed ?? []).map { s in
                let mark = s.replied ? L.string("ui.signals.repliedMark") : ""
                return TerminalSanitizer.oneLine("\(s.from.username)  \(TimeLabel.text(s.createdAt, L, now: now, utcOffsetSeconds: utcOffsetSeconds))  \(s.content)") + mark
            }
        case .mine:
            empty = "ui.signals.mineEmpty"
            rowsOf = (v.mine ?? []).map { s in
                "\(TimeLabel.text(s.createdAt, L, now: now, utcOffsetSeconds: utcOffsetSeconds))  " + L.string("ui.signals.replies", ["n": String(s.replyCount)])
                    + "  " + TerminalSanitizer.oneLine(s.content)
            }
        case .inbox:
            empty = "ui.signals.empty"
            // The mark goes on after the words are made one line (which trims leading blanks).
            rowsOf = (v.inbox ?? []).map { it in
                (it.isImOpened ? "  " : "● ") + TerminalSanitizer.oneLine("\(it.from.username)：\(it.replyContent)  ← \(it.signalContent)")
            }
        }
        let loaded: Bool = switch v.tab { case .feed: v.feed != nil; case .mine: v.mine != nil; case .inbox: v.inbox != nil }
        if !loaded { out.append((L.string("ui.loading"), Theme.dim)) } else if rowsOf.isEmpty { out.append((L.string(empty), Theme.dim)) }
        // The window of rows around the highlighted one.
        let room = max(1, rows - 5)
        let first = max(0, min(v.index - room / 2, rowsOf.count - room))
        // Others wrote these words: each row was made one line, without escapes, above.
        for (n, row) in rowsOf.enumerated().dropFirst(first).prefix(room) {
            out.append((row, n == v.index ? Theme.selected : Style()))
        }
        out.append(("", Style()))
        if let c = v.composing {
            let prompt: String
            switch c {
            case .reply(let s, _): prompt = L.string("ui.signals.replyPrompt", ["name": TerminalSanitizer.oneLine(s.from.username)])
            case .report: prompt = L.string("ui.signals.reportPrompt")
            case .post: prompt = L.string("ui.signals.postPrompt")
            }
            out.append((prompt + TerminalSanitizer.oneLine(c.text) + "▏", Theme.prompt))
        } else if v.deleting != nil {
            out.append((L.string("ui.signals.confirmDelete"), Theme.prompt))
        } else {
            let hint: String = switch v.tab {
            case .feed: "ui.signals.hint.feed"
            case .mine: "ui.signals.hint.mine"
            case .inbox: "ui.signals.hint.inbox"
            }
            out.append((L.string(hint), Theme.dim))
        }
        return out
    }
}

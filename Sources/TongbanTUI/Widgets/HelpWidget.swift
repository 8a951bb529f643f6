import ChatCore
import TerminalUI

/// `?`: every key with what it does, generated from `Binding.table` (and
/// the keys `keys.json` added, written before the defaults). List and
/// global keys beside message and input keys when the screen is wide
/// enough, else one column.
enum HelpWidget {
    /// One section: its title, then rows of keys and what they do.
    struct Section: Equatable {
        var title: String
        var rows: [(keys: String, what: String)]

        static func == (a: Section, b: Section) -> Bool {
            a.title == b.title && a.rows.map(\.keys) == b.rows.map(\.keys) && a.rows.map(\.what) == b.rows.map(\.what)
        }
    }

    static func sections(_ keyMap: KeyMap, _ L: Localizer) -> [Section] {
        Binding.Scope.allCases.map { scope in
            var rows: [(keys: String, what: String)] = []
            var rowOf: [String: Int] = [:]
            // A row of many keys named as a range (`1-6`) keeps that name; only rebound keys join it.
            var named: Set<String> = []
            for b in Binding.table where b.scope == scope {
                guard let action = b.action else {
                    let parts = L.string(b.help).split(separator: "\t", maxSplits: 1).map(String.init)
                    rows.append((parts.first ?? "", parts.count > 1 ? parts[1] : ""))
                    continue
                }
                let added = keyMap.rebound.filter { $0.action == action.rawValue }.map { label($0.key) }
                let keys = b.keys.map(label)
                if let text = b.hintKeysText, rowOf[b.help] == nil {
                    named.insert(b.help)
                    rowOf[b.help] = rows.count
                    rows.append((unique(added + [text]), L.string(b.help)))
                    continue
                }
                if let i = rowOf[b.help], named.contains(b.help) {
                    if !added.isEmpty { rows[i].keys = unique(added + rows[i].keys.split(separator: " ").map(String.init)) }
                    continue
                }
                if let i = rowOf[b.help] {
                    rows[i].keys = unique(added + rows[i].keys.split(separator: " ").map(String.init) + keys)
                } else {
                    rowOf[b.help] = rows.count
                    rows.append((unique(added + keys), L.string(b.help)))
                }
            }
            return Section(title: L.string("help.section." + scope.rawValue), rows: rows)
        }
    }

    /// The keys in order, each once, as one string.
    static func unique(_ keys: [String]) -> String {
        keys.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: " ")
    }

    /// A key as the help shows it: arrows as arrows, else as `keys.json`
    /// spells it.
    static func label(_ key: Key) -> String {
        switch key {
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        default: return KeyMap.name(of: key)
        }
    }

    /// A section as lines, the keys padded to one column.
    static func lines(_ section: Section) -> [(String, Style)] {
        let keyWidth = section.rows.map { DisplayWidth.of($0.keys) }.max() ?? 0
        return [(section.title, Theme.title)] + section.rows.map { row in
            ("  " + row.keys + String(repeating: " ", count: keyWidth - DisplayWidth.of(row.keys)) + "  " + row.what, Style())
        }
    }

    static func render(_ keyMap: KeyMap, _ L: Localizer, into g: inout Grid, _ area: Rect) {
        let s = sections(keyMap, L).map(lines)
        let blank = [("", Style())]
        let left = s[0] + blank + s[3], right = s[1] + blank + s[2]
        let leftWidth = left.map { DisplayWidth.of($0.0) }.max() ?? 0
        let rightWidth = right.map { DisplayWidth.of($0.0) }.max() ?? 0
        let gap = 4
        guard leftWidth + gap + rightWidth + 4 <= area.width - 4 else {
            DialogWidget.render(title: L.string("ui.help"), lines: s[0] + blank + s[1] + blank + s[2] + blank + s[3], into: &g, area)
            return
        }
        let rows = max(left.count, right.count)
        let sizing = [(String(repeating: " ", count: leftWidth + gap + rightWidth), Style())]
            + Array(repeating: ("", Style()), count: rows - 1)
        let origin = DialogWidget.render(title: L.string("ui.help"), lines: sizing, into: &g, area)
        let visible = min(rows, max(0, area.height - 2 - 2))
        for i in 0..<visible {
            if i < left.count { g.put(left[i].0, x: origin.x, y: origin.y + i, style: left[i].1, maxWidth: leftWidth) }
            if i < right.count {
                g.put(right[i].0, x: origin.x + leftWidth + gap, y: origin.y + i, style: right[i].1, maxWidth: rightWidth)
            }
        }
    }
}

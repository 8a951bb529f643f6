/// A message's reactions (PROTOCOL.md v3 "React"): for each emoji, the
/// imUids of those who reacted with it, in the order they did. On the wire
/// a JSON object `{"👍": ["tb_1", "tb_2"]}`. Shown most used first, as
/// Telegram does, ties by code point, so every reader sees one order
/// (a JSON object's keys have none).
public struct Reactions: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable {
        public var emoji: String
        public var users: [String]
    }

    /// At most this many distinct emoji on one message.
    public static let maxEmoji = 20
    /// The longest emoji accepted, in UTF-8 bytes (a family with skin tones fits).
    public static let maxEmojiBytes = 32

    public private(set) var entries: [Entry] = []

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    public func users(of emoji: String) -> [String] { entries.first { $0.emoji == emoji }?.users ?? [] }

    /// Whether `emoji` may be a reaction: one grapheme, at most 32 bytes,
    /// neither blank nor a control character.
    public static func isValidEmoji(_ emoji: String) -> Bool {
        guard emoji.count == 1, emoji.utf8.count <= maxEmojiBytes, let c = emoji.first else { return false }
        // A lone control or format character (a zero-width joiner alone) is not a reaction.
        if c.isWhitespace || c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return false }
        return !(c.unicodeScalars.count == 1 && c.unicodeScalars.first?.properties.generalCategory == .format)
    }

    /// Adds or takes back `user`'s `emoji`; false when it would be one
    /// emoji past `maxEmoji` (nothing changes then).
    @discardableResult
    public mutating func set(_ emoji: String, by user: String, on: Bool) -> Bool {
        if let i = entries.firstIndex(where: { $0.emoji == emoji }) {
            if on {
                if !entries[i].users.contains(user) { entries[i].users.append(user) }
            } else {
                entries[i].users.removeAll { $0 == user }
                if entries[i].users.isEmpty { entries.remove(at: i) }
            }
            sort()
            return true
        }
        guard on else { return true }
        guard entries.count < Self.maxEmoji else { return false }
        entries.append(Entry(emoji: emoji, users: [user]))
        sort()
        return true
    }

    private mutating func sort() {
        entries.sort { a, b in
            a.users.count != b.users.count ? a.users.count > b.users.count
                : a.emoji.unicodeScalars.lexicographicallyPrecedes(b.emoji.unicodeScalars)
        }
    }

    /// Reads `emoji -> users` as anyone may have written it: invalid emoji
    /// and empty lists left out, each user once, at most `maxEmoji`.
    init(reading pairs: [(String, [String])]) {
        for (emoji, users) in pairs.sorted(by: { $0.0.unicodeScalars.lexicographicallyPrecedes($1.0.unicodeScalars) })
        where Self.isValidEmoji(emoji) && entries.count < Self.maxEmoji {
            var seen = Set<String>()
            let unique = users.filter { seen.insert($0).inserted }
            if !unique.isEmpty { entries.append(Entry(emoji: emoji, users: unique)) }
        }
        sort()
    }

    // MARK: - JSON: an object of arrays, keys in first-reaction order

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        self.init(reading: c.allKeys.map { ($0.stringValue, (try? c.decode([String].self, forKey: $0)) ?? []) })
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        for e in entries { try c.encode(e.users, forKey: AnyKey(stringValue: e.emoji)) }
    }

    /// The stored form: the same JSON object (keys sorted), "" when there are none.
    public var jsonText: String {
        guard !isEmpty else { return "" }
        return JSONObject(fields: Dictionary(entries.map { ($0.emoji, JSONValue.array($0.users.map { .string($0) })) },
                                             uniquingKeysWith: { a, _ in a })).jsonText()
    }

    /// Reads the stored form; none for "" or anything that does not read.
    public init(jsonText: String) {
        guard !jsonText.isEmpty, let obj = JSONObject(jsonText: jsonText) else { self.init(); return }
        self.init(reading: obj.fields.keys.map { ($0, obj.stringArray($0) ?? []) })
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

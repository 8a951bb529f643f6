import Foundation

/// Looks up user-facing strings in the tables under `Resources/Localization/`.
/// Placeholders are `{name}`; a key missing from a table falls back to the
/// English table, then to the key itself, so a gap shows but never crashes.
public struct Localizer: Sendable {
    public let language: Language
    private let table: [String: String]

    public init(language: Language) {
        self.language = language
        self.table = language == .en ? Localizer.english : Localizer.loadTable(language)
    }

    /// The English table, read once, when first needed: as the fallback of
    /// another language only for a key that language lacks. Decoding one
    /// table is about a fourteenth of a start's CPU before its first frame
    /// (a `perf` profile), and a zh-Hans client decoded two.
    private static let english = loadTable(.en)

    /// The localizer for this process's environment.
    public static let current = Localizer(language: .resolve(environment: ProcessInfo.processInfo.environment))

    public func string(_ key: String, _ args: [String: String] = [:]) -> String {
        var s = table[key] ?? Localizer.english[key] ?? key
        for (name, value) in args {
            s = s.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return s
    }

    /// Every key of this language's table (for completeness tests).
    public var keys: Set<String> { Set(table.keys) }

    private static func loadTable(_ language: Language) -> [String: String] {
        guard let url = ResourceLocator.url(for: "Localization/\(language.rawValue).json"),
              let data = try? Data(contentsOf: url),
              let table = try? JSONDecoder().decode([String: String].self, from: data) else { return [:] }
        return table
    }
}

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
        let template = table[key] ?? Localizer.english[key] ?? key
        return args.isEmpty ? template : Localizer.fill(template, args)
    }

    /// Puts each `{name}` of `args` in one pass over the template: a value
    /// (a nickname, a group's name, what a server said) is never searched
    /// for placeholders itself, so "{count}" typed as a name stays as typed.
    /// A `{word}` with no value is left as it is.
    static func fill(_ template: String, _ args: [String: String]) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == "}" || $0 == "{" }), rest[close] == "}",
                  let value = args[String(rest[afterOpen..<close])] else {
                out += rest[open..<afterOpen]
                rest = rest[afterOpen...]
                continue
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
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

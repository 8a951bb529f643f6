/// The languages Tongban is translated into.
public enum Language: String, Sendable, CaseIterable {
    case zhHans = "zh-Hans"
    case en

    /// Resolves the language: an explicit override (`TONGBAN_LANG` or the
    /// config file) wins, then `LC_ALL`, `LC_MESSAGES`, `LANG` as POSIX orders
    /// them. `zh*` is Chinese, any other named language English; an unset,
    /// `C` or `POSIX` locale gets the product's own language, Chinese.
    public static func resolve(environment: [String: String], override: String? = nil) -> Language {
        if let o = override ?? environment["TONGBAN_LANG"], let lang = parse(o) { return lang }
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[key], !value.isEmpty else { continue }
            return parse(value) ?? .zhHans
        }
        return .zhHans
    }

    /// `zh_CN.UTF-8` -> zh-Hans, `en_US` -> en, `fr_FR` -> en, `C`/`POSIX` -> nil.
    static func parse(_ raw: String) -> Language? {
        let lower = raw.lowercased()
        if lower.isEmpty || lower == "c" || lower.hasPrefix("c.") || lower == "posix" { return nil }
        if lower.hasPrefix("zh") { return .zhHans }
        return .en
    }
}

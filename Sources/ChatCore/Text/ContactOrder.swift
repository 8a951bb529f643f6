import Foundation
import Synchronization

/// Contacts in the order WeChat and QQ list them: by the name shown (a
/// remark, else the display name), Chinese by its pinyin (ICU's Han-Latin
/// transliteration, which Foundation reaches on Linux and macOS), letters
/// case- and accent-blind; names that do not start with a letter after
/// that come last, as WeChat's "#" section. Where no transliteration is
/// available, Chinese falls back to code-point order.
public enum ContactOrder {
    /// The key a name sorts by: pinyin without tones, lower case. Kept once
    /// made: the contacts page sorts and filters by it on every frame, and
    /// ICU's transliteration costs tens of microseconds a name.
    public static func key(_ name: String) -> String {
        if let known = keys.withLock({ $0[name] }) { return known }
        let latin = name.applyingTransform(.toLatin, reverse: false) ?? name
        let key = latin.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        keys.withLock { known in
            // Names come and go with contacts: a bound, not an eviction policy.
            if known.count >= maxKeys { known.removeAll(keepingCapacity: true) }
            known[name] = key
        }
        return key
    }

    private static let keys = Mutex<[String: String]>([:])
    static let maxKeys = 4096

    /// The section letter ("A"-"Z"), or "#" for a name that starts otherwise.
    public static func initial(_ name: String) -> String {
        guard let first = key(name).unicodeScalars.first, ("a"..."z").contains(first) else { return "#" }
        return String(first).uppercased()
    }

    public static func sorted(_ contacts: [Contact]) -> [Contact] {
        contacts.map { (c: $0, key: key($0.shownName), hash: initial($0.shownName) == "#") }
            .sorted { a, b in
                if a.hash != b.hash { return !a.hash }
                if a.key != b.key { return a.key < b.key }
                return a.c.uid < b.c.uid
            }
            .map(\.c)
    }
}

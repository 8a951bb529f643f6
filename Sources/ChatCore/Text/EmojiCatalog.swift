/// The emoji the input bar offers (seed 003's 表情): by the short names
/// chat apps use (`:smile`, `:thumbsup`), in the order the picker's grid
/// shows them. Names are lower-case ASCII, so what is typed after `:`
/// matches them without any locale.
public enum EmojiCatalog {
    public struct Entry: Sendable, Hashable {
        public let emoji: String
        public let names: [String]
        public var name: String { names[0] }
    }

    private static func e(_ emoji: String, _ names: String...) -> Entry { Entry(emoji: emoji, names: names) }

    public static let all: [Entry] = [
        e("😀", "grinning", "smile"), e("😄", "smile", "happy"), e("😁", "grin"), e("😂", "joy", "lol"), e("🤣", "rofl"),
        e("😊", "blush"), e("🙂", "slight_smile"), e("😉", "wink"), e("😍", "heart_eyes", "love"), e("😘", "kiss"),
        e("😋", "yum"), e("😜", "stuck_out_tongue", "tongue"), e("🤔", "thinking", "hmm"), e("🤗", "hug", "hugs"),
        e("🤩", "star_struck", "wow"), e("😎", "sunglasses", "cool"), e("🥳", "partying", "party"), e("😏", "smirk"),
        e("😐", "neutral"), e("😑", "expressionless"), e("🙄", "roll_eyes"), e("😴", "sleeping", "zzz"), e("😪", "sleepy"),
        e("😮", "open_mouth"), e("😲", "astonished"), e("😳", "flushed"), e("🥺", "pleading", "please"), e("😢", "cry"),
        e("😭", "sob"), e("😤", "triumph"), e("😠", "angry"), e("😡", "rage"), e("🤯", "exploding_head", "mindblown"),
        e("😱", "scream"), e("🥶", "cold"), e("🥵", "hot"), e("🤒", "sick"), e("😷", "mask"), e("🤐", "zipper"),
        e("🤫", "shush"), e("🤭", "giggle"), e("😅", "sweat_smile"), e("😇", "innocent", "angel"), e("🙃", "upside_down"),
        e("👍", "thumbsup", "+1", "like", "ok"), e("👎", "thumbsdown", "-1", "dislike"), e("👌", "ok_hand"), e("✌️", "v", "peace"),
        e("🤞", "crossed_fingers", "luck"), e("👏", "clap"), e("🙌", "raised_hands", "hooray"), e("🙏", "pray", "thanks"),
        e("🤝", "handshake", "deal"), e("💪", "muscle", "strong"), e("👋", "wave", "hi", "bye"), e("✋", "hand", "stop"),
        e("👀", "eyes", "look"), e("🫡", "salute"), e("🤷", "shrug"), e("🤦", "facepalm"), e("🙈", "see_no_evil"),
        e("❤️", "heart", "red_heart"), e("🧡", "orange_heart"), e("💛", "yellow_heart"), e("💚", "green_heart"),
        e("💙", "blue_heart"), e("💜", "purple_heart"), e("🖤", "black_heart"), e("💔", "broken_heart"),
        e("💯", "100", "hundred"), e("🔥", "fire", "lit"), e("✨", "sparkles"), e("⭐", "star"), e("🌟", "glowing_star"),
        e("🎉", "tada", "congrats"), e("🎊", "confetti"), e("🎁", "gift", "present"), e("🎂", "cake", "birthday"),
        e("🍰", "shortcake"), e("🍻", "beers", "cheers"), e("☕", "coffee"), e("🍵", "tea"), e("🍜", "ramen", "noodles"),
        e("🍚", "rice"), e("🥟", "dumpling"), e("🍉", "watermelon"), e("🍎", "apple"), e("🌹", "rose"), e("🌸", "cherry_blossom"),
        e("☀️", "sunny", "sun"), e("🌙", "moon"), e("🌧️", "rain"), e("❄️", "snowflake", "snow"), e("⛰️", "mountain"),
        e("🏔️", "snow_mountain"), e("🏃", "run", "running"), e("🚴", "bike", "cycling"), e("🏸", "badminton"),
        e("⚽", "soccer", "football"), e("🏀", "basketball"), e("🎮", "game", "video_game"), e("🎵", "music", "note"),
        e("📚", "books"), e("📷", "camera"), e("💻", "computer", "laptop"), e("📱", "phone"), e("⏰", "alarm"),
        e("🚗", "car"), e("🚄", "train"), e("✈️", "plane", "airplane"), e("🏠", "house", "home"), e("🐶", "dog"),
        e("🐱", "cat"), e("🐼", "panda"), e("🐧", "penguin"), e("🐷", "pig"), e("🐮", "cow"), e("🐔", "chicken"),
        e("✅", "check", "done", "yes"), e("❌", "x", "no", "cross"), e("⚠️", "warning"), e("❓", "question"), e("❗", "exclamation"),
        e("💤", "sleep"), e("💬", "speech", "chat"), e("💡", "bulb", "idea"), e("📌", "pin"), e("🆗", "ok_button"),
    ]

    /// Entries a name starts with `prefix` (then contains it), each once, at most `limit`.
    public static func matching(_ prefix: String, limit: Int = 8) -> [Entry] {
        let p = prefix.lowercased()
        guard !p.isEmpty else { return [] }
        var out = all.filter { $0.names.contains { $0.hasPrefix(p) } }
        if out.count < limit {
            out += all.filter { e in !out.contains(e) && e.names.contains { $0.contains(p) } }
        }
        return Array(out.prefix(limit))
    }
}

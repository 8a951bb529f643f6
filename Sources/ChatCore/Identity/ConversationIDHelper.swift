/// Conversation ids of single chats (seed 000 §二, PROTOCOL.md "Identity")
/// and of groups (`sg_<gid>`, PROTOCOL.md "Groups").
public enum ConversationIDHelper {
    public static let imUidPrefix = "tb_"
    public static let singleChatPrefix = "si_"
    public static let groupPrefix = "sg_"
    /// v4: a secret (end-to-end encrypted) chat, `ss_` + the two imUids as in `si_`.
    public static let secretPrefix = "ss_"

    /// `sg_<gid>`.
    public static func group(_ gid: Int) -> String { "\(groupPrefix)\(gid)" }

    /// The gid of `sg_<gid>` (1-18 digits, no leading zero), else nil.
    public static func groupId(_ conversationId: String) -> Int? {
        guard conversationId.hasPrefix(groupPrefix) else { return nil }
        let digits = conversationId.utf8.dropFirst(groupPrefix.utf8.count)
        guard !digits.isEmpty, digits.count <= 18, digits.first != 0x30,
              digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    public static func isGroup(_ conversationId: String) -> Bool { groupId(conversationId) != nil }

    /// `sr_<rid>` (PROTOCOL.md v3 "Rooms").
    public static let roomPrefix = "sr_"
    public static func room(_ rid: Int) -> String { "\(roomPrefix)\(rid)" }

    /// The rid of `sr_<rid>` (1-18 digits, no leading zero), else nil.
    public static func roomId(_ conversationId: String) -> Int? {
        guard conversationId.hasPrefix(roomPrefix) else { return nil }
        let digits = conversationId.utf8.dropFirst(roomPrefix.utf8.count)
        guard !digits.isEmpty, digits.count <= 18, digits.first != 0x30,
              digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    public static func isRoom(_ conversationId: String) -> Bool { roomId(conversationId) != nil }

    /// `tb_<uid>`.
    public static func imUid(_ uid: Int) -> String { "\(imUidPrefix)\(uid)" }

    /// The numeric uid of `tb_<uid>`, or nil when it is not of that form.
    public static func uid(fromImUid imUid: String) -> Int? {
        guard imUid.hasPrefix(imUidPrefix) else { return nil }
        let digits = imUid.dropFirst(imUidPrefix.count)
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              !(digits.first == "0"), let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// `si_` + the two imUids sorted as plain strings, so `tb_10` < `tb_9`.
    public static func make(myUid: Int, targetUid: Int) -> String {
        let a = imUid(myUid)
        let b = imUid(targetUid)
        let sorted = [a, b].sorted()
        return "\(singleChatPrefix)\(sorted[0])_\(sorted[1])"
    }

    /// v4: the secret chat of two users (`ss_` + the imUids sorted as in `make`).
    public static func secret(myUid: Int, targetUid: Int) -> String {
        secretPrefix + make(myUid: myUid, targetUid: targetUid).dropFirst(singleChatPrefix.count)
    }

    /// A well-formed `ss_` id.
    public static func isSecret(_ conversationId: String) -> Bool {
        conversationId.hasPrefix(secretPrefix) && uids(conversationId) != nil
    }

    /// The open chat of a secret chat's two people (and an `si_` id as it is).
    public static func openChat(of conversationId: String) -> String {
        guard isSecret(conversationId) else { return conversationId }
        return singleChatPrefix + conversationId.dropFirst(secretPrefix.count)
    }

    /// The two imUids of a conversation id, validated: both well formed,
    /// different, and in the order ``make(myUid:targetUid:)`` produces.
    public static func parse(_ conversationId: String) -> (String, String)? {
        guard let (a, b) = uids(conversationId) else { return nil }
        return (imUid(a), imUid(b))
    }

    /// The two uids of a valid one-to-one conversation id, open (`si_`) or
    /// secret (`ss_`), in the id's order. Byte-level (`si_tb_<a>_tb_<b>`):
    /// the server checks an id on every request.
    public static func uids(_ conversationId: String) -> (Int, Int)? {
        let bytes = conversationId.utf8
        var i = bytes.startIndex
        func literal(_ text: StaticString) -> Bool {
            for byte in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) {
                guard i < bytes.endIndex, bytes[i] == byte else { return false }
                i = bytes.index(after: i)
            }
            return true
        }
        /// 1-18 digits without a leading zero: the same numbers `uid(fromImUid:)` accepts.
        func number() -> Int? {
            var value = 0, digits = 0
            while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                if digits == 0 && bytes[i] == 0x30 { return nil }
                digits += 1
                // Before the multiplication: a 19th digit can overflow Int.
                guard digits <= 18 else { return nil }
                value = value * 10 + Int(bytes[i] - 0x30)
                i = bytes.index(after: i)
            }
            return digits > 0 ? value : nil
        }
        let start = i
        guard literal("si_tb_") || { i = start; return literal("ss_tb_") }(), let a = number(), literal("_tb_"), let b = number(), i == bytes.endIndex, a != b else { return nil }
        // The order make() produces: the imUids compared as strings.
        guard imUid(a) < imUid(b) else { return nil }
        return (a, b)
    }

    /// The other participant's uid, or nil when `myUid` is not in the conversation.
    public static func peerUid(in conversationId: String, myUid: Int) -> Int? {
        guard let (a, b) = uids(conversationId) else { return nil }
        if a == myUid { return b }
        if b == myUid { return a }
        return nil
    }
}

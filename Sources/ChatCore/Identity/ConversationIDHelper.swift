/// Conversation ids of single chats (seed 000 §二, PROTOCOL.md "Identity").
public enum ConversationIDHelper {
    public static let imUidPrefix = "tb_"
    public static let singleChatPrefix = "si_"

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

    /// The two imUids of a conversation id, validated: both well formed,
    /// different, and in the order ``make(myUid:targetUid:)`` produces.
    public static func parse(_ conversationId: String) -> (String, String)? {
        guard conversationId.hasPrefix(singleChatPrefix) else { return nil }
        let rest = conversationId.dropFirst(singleChatPrefix.count)
        // rest = tb_<a>_tb_<b>; split on the second "_tb_".
        guard rest.hasPrefix(imUidPrefix) else { return nil }
        let afterFirst = rest.dropFirst(imUidPrefix.count)
        guard let sep = afterFirst.range(of: "_\(imUidPrefix)") else { return nil }
        let first = imUidPrefix + afterFirst[afterFirst.startIndex..<sep.lowerBound]
        let second = imUidPrefix + afterFirst[sep.upperBound...]
        guard let ua = uid(fromImUid: first), let ub = uid(fromImUid: second), ua != ub,
              make(myUid: ua, targetUid: ub) == conversationId else { return nil }
        return (first, second)
    }

    /// The peer's uid in `conversationId` as seen by `myUid`, or nil when the
    /// id is malformed or does not contain `myUid`.
    public static func peerUid(in conversationId: String, myUid: Int) -> Int? {
        guard let (a, b) = parse(conversationId) else { return nil }
        let me = imUid(myUid)
        if a == me { return uid(fromImUid: b) }
        if b == me { return uid(fromImUid: a) }
        return nil
    }
}

import ChatCore

/// A failed call in the user's words, never the server's English: what
/// went wrong by PROTOCOL.md's code (a refusal), or that the server could
/// not be reached. Actions put it after their own words ("加入群组失败：…").
public enum ServerWords {
    public static func describe(_ error: any Error, _ l: Localizer) -> String {
        guard let e = error as? APIError else { return "\(error)" }
        switch e {
        case .cannotConnect, .unreachable, .timeout: return l.string("error.unreachable")
        case .badResponse: return l.string("error.badResponse")
        case .server(_, let code, _, _, _):
            switch code {
            case .blocked?: return l.string("error.blocked")
            case .unauthorized?: return l.string("error.signedOut")
            case .forbidden?: return l.string("error.forbidden")
            case .notFound?: return l.string("error.notFound")
            case .conflict?: return l.string("error.conflict")
            case .tooLarge?: return l.string("error.tooLarge")
            case .unsupportedMedia?: return l.string("error.unsupportedMedia")
            case .rateLimited?: return l.string("error.rateLimited")
            case .storageFull?: return l.string("error.serverFull")
            case .revokeWindowPassed?: return l.string("error.revokeWindow")
            case .editWindowPassed?: return l.string("error.editWindow")
            case .invalidRequest?, .cursorExpired?, nil: return l.string("error.invalid")
            }
        }
    }

    /// `key`'s words ("添加好友失败：{reason}") with the reason filled in.
    public static func failed(_ key: String, _ error: any Error, _ l: Localizer) -> String {
        l.string(key, ["reason": describe(error, l)])
    }
}

import ChatCore

/// A failed call in the user's words, never the server's English: what
/// went wrong by PROTOCOL.md's code (a refusal), or that the server could
/// not be reached. Actions put it after their own words ("加入群组失败：…").
public enum ServerWords {
    public static func describe(_ error: any Error, _ l: Localizer) -> String {
        // The client's own checks (a password too short, the current one wrong) have words of their own.
        if let problem = error as? AccountRules.Problem { return problem.text(l) }
        guard let e = error as? APIError else { return "\(error)" }
        switch e {
        case .cannotConnect, .unreachable, .timeout: return l.string("error.unreachable")
        case .badResponse: return l.string("error.badResponse")
        case .server(_, let code, _, _, let retryAfter):
            switch code {
            case .blocked?: return l.string("error.blocked")
            case .unauthorized?: return l.string("error.signedOut")
            case .forbidden?: return l.string("error.forbidden")
            case .notFound?: return l.string("error.notFound")
            case .conflict?: return l.string("error.conflict")
            case .tooLarge?: return l.string("error.tooLarge")
            case .quota?: return l.string("error.quota")
            case .unsupportedMedia?: return l.string("error.unsupportedMedia")
            case .rateLimited?: return rateLimited(retryAfter: retryAfter, l)
            case .storageFull?: return l.string("error.serverFull")
            case .revokeWindowPassed?: return l.string("error.revokeWindow")
            case .editWindowPassed?: return l.string("error.editWindow")
            case .devicesChanged?: return l.string("error.devicesChanged")
            case .tooManyDevices?: return l.string("error.tooManyDevices")
            case .noDevices?: return l.string("error.noDevices")
            case .invalidRequest?, .cursorExpired?, nil: return l.string("error.invalid")
            }
        }
    }

    /// `key`'s words ("添加好友失败：{reason}") with the reason filled in.
    public static func failed(_ key: String, _ error: any Error, _ l: Localizer) -> String {
        l.string(key, ["reason": describe(error, l)])
    }

    /// A 429: to wait, and how long when the server said (`Retry-After`).
    /// `key` is the words without a time; `key + ".after"` takes `{wait}`.
    public static func rateLimited(retryAfter: Int?, _ l: Localizer, key: String = "error.rateLimited") -> String {
        guard let seconds = retryAfter, seconds > 0 else { return l.string(key) }
        return l.string(key + ".after", ["wait": wait(seconds: seconds, l)])
    }

    /// How long to wait, as a person says it: seconds up to a minute and a
    /// half, else whole minutes rounded up (an hour's limit reads "60 分钟").
    public static func wait(seconds: Int, _ l: Localizer) -> String {
        if seconds <= 90 { return l.string("error.wait.seconds", ["n": String(seconds)]) }
        return l.string("error.wait.minutes", ["n": String((seconds + 59) / 60)])
    }
}

import ChatCore

/// PROTOCOL.md's rules for a new account, checked on the client so a
/// newcomer hears what is wrong before anything is sent.
public enum AccountRules {
    public enum Problem: Error, Sendable, Equatable {
        case badAccount
        case shortPassword
        case longPassword
        case accountTaken(String)
        /// v4 `/auth/password`: the current password given is not the account's.
        case wrongCurrentPassword

        /// The text for the user, in their language.
        public func text(_ l: Localizer) -> String {
            switch self {
            case .badAccount: l.string("signup.badAccount")
            case .shortPassword: l.string("signup.shortPassword")
            case .longPassword: l.string("signup.longPassword")
            case .accountTaken(let account): l.string("signup.taken", ["account": account])
            case .wrongCurrentPassword: l.string("password.wrongCurrent")
            }
        }
    }

    public static let passwordLength = 8...128

    /// Why logging in to or registering on `server` failed, in the user's words.
    public static func describe(_ error: any Error, server: String, localizer l: Localizer) -> String {
        if let p = error as? Problem { return p.text(l) }
        guard let e = error as? APIError else { return "\(error)" }
        switch e {
        case .server(_, .unauthorized?, _, _, _): return l.string("signin.wrong")
        // Too many sign-ups or failed sign-ins from this address, or the server's password hashing is busy.
        case .server(_, .rateLimited?, _, _, let retryAfter):
            return ServerWords.rateLimited(retryAfter: retryAfter, l, key: "signin.rateLimited")
        case .cannotConnect(let why), .unreachable(let why), .badResponse(let why): return l.string("signin.unreachable", ["server": server, "reason": why])
        case .timeout: return l.string("signin.unreachable", ["server": server, "reason": e.description])
        case .server(_, _, _, let message, _): return message
        }
    }

    public static func problem(account: String, password: String) -> Problem? {
        let validAccount = (3...32).contains(account.utf8.count)
            && account.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
        if !validAccount { return .badAccount }
        return problem(password: password)
    }

    /// What is wrong with a new password (8-128 characters), if anything.
    public static func problem(password: String) -> Problem? {
        if password.count < passwordLength.lowerBound { return .shortPassword }
        if password.count > passwordLength.upperBound { return .longPassword }
        return nil
    }
}

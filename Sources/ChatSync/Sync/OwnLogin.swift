import ChatCore

/// This device's own sign-in, which tells the `new_login` events (v4) that
/// are news from those that are not. The sync log is the account's: it
/// holds this device's own sign-in, and a device whose store is new pulls
/// every earlier one too; neither is another device signing in now.
public struct OwnLogin: Sendable, Hashable {
    /// This login's session (nil: a login saved before v4).
    public var sessionId: String?
    /// When the server made it, by the server's clock as the events carry
    /// theirs (nil: not known, and no earlier sign-in is left out).
    public var signedInAt: Int?

    public init(sessionId: String? = nil, signedInAt: Int? = nil) {
        self.sessionId = sessionId
        self.signedInAt = signedInAt
    }

    /// The sign-ins of other devices since this one's, in the log's order.
    public func news(_ logins: [NewLoginSession]) -> [NewLoginSession] {
        logins.filter { login in
            guard login.sessionId != sessionId else { return false }
            // The same millisecond as mine counts as news: a warning too many beats one missed.
            return signedInAt.map { login.createdAt >= $0 } ?? true
        }
    }
}

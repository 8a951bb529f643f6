import ChatCore

/// Users as others see them: display names, avatars, search.
protocol UserRepository {
    func info(uid: Int) throws -> UserBasicInfo?
    /// Up to `limit` users other than `excluded` whose account or username
    /// starts with `prefix`, by account. ASCII letters match in either case;
    /// `%`, `_` and `\` in `prefix` match only themselves.
    func search(prefix: String, excluding excluded: Int, limit: Int) throws -> [UserBasicInfo]
    func setUsername(_ username: String, uid: Int) throws
}

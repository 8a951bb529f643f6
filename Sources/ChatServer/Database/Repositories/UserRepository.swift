import ChatCore

/// Users as others see them: display names, avatars, search.
package protocol UserRepository {
    func info(uid: Int) throws -> UserBasicInfo?
    /// Up to `limit` users other than `excluded` whose account or username
    /// starts with `prefix`, by account. ASCII letters match in either case;
    /// `%`, `_` and `\` in `prefix` match only themselves.
    func search(prefix: String, excluding excluded: Int, limit: Int) throws -> [UserBasicInfo]
    func setUsername(_ username: String, uid: Int) throws
    func setSignature(_ signature: String, uid: Int) throws
    func setAvatar(_ avatar: String, uid: Int) throws
    /// `uid`'s switches: strangers, typing, reads (each true by default).
    func settings(uid: Int) throws -> UserSettings
    func setSettings(_ settings: UserSettings, uid: Int) throws
    /// Whether `key` is some user's or group's picture (anyone may read those).
    func isAvatar(_ key: String) throws -> Bool
}

/// What each user used of the daily quotas (PROTOCOL.md v4 "Limits and
/// consent"): one row per use, counted over a sliding window. Kept in the
/// database, so a quota holds for every node of a cluster.
package protocol UsageRepository {
    /// The sum of `uid`'s uses of `kind` after `since` (Unix ms), and the
    /// time of the earliest of them (nil when none).
    func used(uid: Int, kind: String, since: Int) throws -> (amount: Int, earliest: Int?)
    func record(uid: Int, kind: String, amount: Int, at: Int) throws
    /// Forgets every use at or before `cutoff`.
    func prune(through cutoff: Int) throws
}

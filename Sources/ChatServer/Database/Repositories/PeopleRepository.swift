import ChatCore

/// One side of a friendship: `uid`'s view of `peerUid`.
package struct FriendRow: Sendable {
    package var uid: Int
    package var peerUid: Int
    package var remark: String
    package var since: Int

    package init(uid: Int, peerUid: Int, remark: String, since: Int) {
        self.uid = uid; self.peerUid = peerUid; self.remark = remark; self.since = since
    }
}

/// A friend request; one per direction, asked again in place.
package struct FriendRequestRow: Sendable {
    package var id: Int
    package var fromUid: Int
    package var toUid: Int
    package var message: String
    package var status: FriendRequestStatus
    package var createdAt: Int

    package init(id: Int, fromUid: Int, toUid: Int, message: String, status: FriendRequestStatus, createdAt: Int) {
        self.id = id; self.fromUid = fromUid; self.toUid = toUid; self.message = message; self.status = status; self.createdAt = createdAt
    }
}

/// The stored spelling of a request's state is PROTOCOL.md's.
package typealias FriendRequestStatus = FriendRequest.Status

/// Friends, friend requests and blocks (PROTOCOL.md v3 "People").
package protocol PeopleRepository {
    func friend(_ uid: Int, _ peer: Int) throws -> FriendRow?
    /// `uid`'s friends, in no particular order.
    func friends(of uid: Int) throws -> [FriendRow]
    /// Makes two users friends (both rows); keeps remarks already set.
    func addFriends(_ a: Int, _ b: Int, since: Int) throws
    /// Ends a friendship both ways; false when there was none.
    func removeFriends(_ a: Int, _ b: Int) throws -> Bool
    func setRemark(_ remark: String, uid: Int, peer: Int) throws

    func request(id: Int) throws -> FriendRequestRow?
    func request(from: Int, to: Int) throws -> FriendRequestRow?
    /// Stores `from`'s request to `to`, replacing an earlier one in that
    /// direction (same id); returns its id.
    func putRequest(from: Int, to: Int, message: String, status: FriendRequestStatus, createdAt: Int) throws -> Int
    func setRequestStatus(id: Int, _ status: FriendRequestStatus) throws
    /// Pending requests `uid` sent or received, oldest first.
    func pendingRequests(involving uid: Int) throws -> [FriendRequestRow]

    /// Whether `uid` blocked `other`.
    func blocks(_ uid: Int, _ other: Int) throws -> Bool
    func block(_ uid: Int, _ other: Int, at: Int) throws
    /// false when `uid` had not blocked `other`.
    func unblock(_ uid: Int, _ other: Int) throws -> Bool
    /// Whom `uid` blocked, most recent first.
    func blocked(by uid: Int) throws -> [Int]
    /// Who blocked `uid`.
    func blockers(of uid: Int) throws -> [Int]
    /// Whether `receiver` refuses a single-chat message from `sender`: they
    /// blocked them, or take messages from friends only and they are not one.
    func refuses(receiver: Int, sender: Int) throws -> Bool
}

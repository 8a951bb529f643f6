import ChatCore
import Foundation
import GRDB

/// Friends and pending friend requests (PROTOCOL.md v3 "People") as last
/// heard from the server. Every function runs inside a transaction the
/// caller (``ChatStore``) opened.
enum ContactTable {
    static func apply(_ contact: Contact, removed: Bool, db: Database) throws {
        if removed {
            try db.cachedStatement(sql: "DELETE FROM contact WHERE uid = ?").execute(arguments: [contact.uid])
        } else {
            try save(contact, db: db)
        }
        // A friend's profile is a profile: the list's names follow it.
        try ProfileTable.save([contact.user], db: db)
    }

    static func save(_ c: Contact, db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO contact(uid, username, avatar, account, signature, remark, since) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [c.uid, c.username, c.avatar, c.account, c.signature, c.remark, c.since])
    }

    /// The whole list, as `/friend/list` gave it.
    static func replace(_ contacts: [Contact], db: Database) throws {
        try db.execute(sql: "DELETE FROM contact")
        for c in contacts { try save(c, db: db) }
        try ProfileTable.save(contacts.map(\.user), db: db)
    }

    static func contacts(db: Database) throws -> [Contact] {
        try Row.fetchAll(db, sql: "SELECT uid, username, avatar, account, signature, remark, since FROM contact").map { row in
            Contact(user: UserBasicInfo(uid: row[0], username: row[1], avatar: row[2], account: row[3], signature: row[4]),
                    remark: row[5], since: row[6])
        }
    }

    /// A request changed: pending ones are kept, answered ones dropped.
    static func apply(_ request: FriendRequest, db: Database) throws {
        guard request.status == .pending else {
            try db.cachedStatement(sql: "DELETE FROM friendRequest WHERE requestId = ?").execute(arguments: [request.requestId])
            return
        }
        let body = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO friendRequest(requestId, status, createdAt, body) VALUES (?, ?, ?, ?)")
            .execute(arguments: [request.requestId, request.status.rawValue, request.createdAt, body])
    }

    /// Every pending request, as `/friend/requests` gave them.
    static func replace(_ requests: FriendRequestsResponse, db: Database) throws {
        try db.execute(sql: "DELETE FROM friendRequest")
        for r in requests.incoming + requests.outgoing { try apply(r, db: db) }
    }

    /// Pending requests, oldest first; one that no longer reads is skipped.
    static func requests(db: Database) throws -> [FriendRequest] {
        try String.fetchAll(db, sql: "SELECT body FROM friendRequest ORDER BY createdAt, requestId").compactMap {
            try? JSONDecoder().decode(FriendRequest.self, from: Data($0.utf8))
        }
    }
}

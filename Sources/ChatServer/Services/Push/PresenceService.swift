/// Who is online, and who may see it: the people a user shares a
/// conversation with.
final class PresenceService: Sendable {
    let hub: PushHub

    init(hub: PushHub, storage: any ChatStorage) {
        self.hub = hub
        // The lookup holds the storage, not this service, which holds the hub.
        hub.contacts.withLock { $0 = ContactsLookup { uid in Self.contacts(of: uid, in: storage) } }
    }

    func isOnline(_ uid: Int) -> Bool { hub.isOnline(uid) }

    /// Whether `viewer` sees `uid` online: never where either blocked the other.
    func isOnline(_ uid: Int, seenBy viewer: Int, in tx: any StorageTransaction) throws -> Bool {
        guard hub.isOnline(uid) else { return false }
        return try !tx.people.blocks(uid, viewer) && !tx.people.blocks(viewer, uid)
    }

    /// Users who share a conversation with `uid` (they see its presence).
    static func contacts(of uid: Int, in storage: any ChatStorage) -> [Int] {
        (try? storage.read { tx in try tx.conversations.contacts(of: uid) }) ?? []
    }
}

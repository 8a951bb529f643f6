import Foundation

/// One device's public keys (PROTOCOL.md v4 "Secret chats"): a login
/// session that uploaded keys. The server never holds a private key.
package struct DeviceKeyRow: Sendable, Hashable {
    package var uid: Int
    package var deviceId: String
    package var identityKey: Data
    package var signingKey: Data
    package var signedPrekeyId: Int
    package var signedPrekey: Data
    package var signedPrekeySignature: Data
    package var createdAt: Int

    package init(uid: Int, deviceId: String, identityKey: Data, signingKey: Data, signedPrekeyId: Int, signedPrekey: Data,
                 signedPrekeySignature: Data, createdAt: Int) {
        self.uid = uid; self.deviceId = deviceId; self.identityKey = identityKey; self.signingKey = signingKey
        self.signedPrekeyId = signedPrekeyId; self.signedPrekey = signedPrekey
        self.signedPrekeySignature = signedPrekeySignature; self.createdAt = createdAt
    }
}

/// Devices' public keys, their one-time prekeys, and the disappearing
/// secret messages waiting for their time.
package protocol KeyRepository {
    /// The device's keys, whether or not its session still exists.
    func device(uid: Int, deviceId: String) throws -> DeviceKeyRow?
    /// `uid`'s devices with keys whose login session still exists and was
    /// seen at or after `seenSince` (Unix ms), oldest first.
    func devices(uid: Int, seenSince: Int) throws -> [DeviceKeyRow]
    /// Inserts a device, or replaces its signed prekey (identity and signing
    /// keys are checked by the caller and never change).
    func saveDevice(_ row: DeviceKeyRow) throws
    /// Devices with keys whose session is gone or was last seen before `seenBefore` (Unix ms).
    func staleDevices(seenBefore: Int, limit: Int) throws -> [(uid: Int, deviceId: String)]
    /// Forgets a device's keys and its one-time prekeys.
    func deleteDevice(uid: Int, deviceId: String) throws
    /// Adds one-time prekeys; an id the device already has keeps its key.
    func addPrekeys(uid: Int, deviceId: String, _ keys: [(id: Int, key: Data)]) throws
    func prekeyCount(uid: Int, deviceId: String) throws -> Int
    /// Keeps only the `keep` newest (highest id) one-time prekeys.
    func trimPrekeys(uid: Int, deviceId: String, keep: Int) throws
    /// Takes the device's oldest one-time prekey: returned and gone.
    func claimPrekey(uid: Int, deviceId: String) throws -> (id: Int, key: Data)?

    /// A disappearing message's time (Unix seconds).
    func noteExpiry(messageId: Int64, expireAt: Int) throws
    /// Messages whose time is at or before `now` (Unix seconds), at most `limit`.
    func expired(through now: Int, limit: Int) throws -> [Int64]
    func forgetExpiry(messageId: Int64) throws
}

import ChatCore
import ChatCrypto
import ChatStore
import Crypto
import Foundation

/// Secret chats on the network side (PROTOCOL.md v4): this device's keys
/// on the server, sealing a message for every current device of both
/// people (claiming keys for devices it has no session with, sealing again
/// when the server says the devices changed), encrypted blobs, retry and
/// reseal. The cryptography and the sessions are the store's
/// (`ChatStore+Secret`); this only talks.
public struct SecretChannel: Sendable {
    let api: any ChatAPI
    let store: ChatStore

    public init(api: any ChatAPI, store: ChatStore) { self.api = api; self.store = store }

    /// How many one-time prekeys a top-up brings the server back to.
    static let prekeyTarget = 100

    /// Uploads this device's keys when the server does not have them yet
    /// (a new login makes new ones). Nil `deviceId`: a login from before v4.
    public func ensureKeys(deviceId: String?) async throws {
        guard let deviceId else { throw SecretVaultError.noIdentity }
        if let upload = try store.secretKeysToUpload(deviceId: deviceId) {
            try await api.uploadKeys(upload)
            try store.markSecretKeysUploaded()
        }
    }

    /// Adds one-time prekeys when the server has fewer than 20 left.
    func topUpPrekeys() async throws {
        let count = try await api.prekeyCount()
        guard count < SecretWire.topUpBelow, let more = try store.moreSecretPrekeys(Self.prekeyTarget - count) else { return }
        try await api.uploadKeys(more)
    }

    /// The devices of `uid` as the server lists them, saved for safety numbers.
    @discardableResult
    func refreshDevices(of uid: Int) async throws -> [DeviceBundle] {
        let devices = try await api.devices(userId: uid)
        try store.saveSecretDevices(imUid: ConversationIDHelper.imUid(uid), devices)
        return devices
    }

    /// Every device of both people but this one: as last heard (a `devices`
    /// event refreshes it), or from the server when not known yet or when
    /// `fresh` (the server said they changed).
    func recipients(peer: Int, myDevice: String, fresh: Bool) async throws -> [SecretRecipient] {
        var out: [SecretRecipient] = []
        for uid in [peer, store.myUid] {
            let imUid = ConversationIDHelper.imUid(uid)
            var known = fresh ? [] : try store.secretDeviceList(imUid: imUid)
            if known.isEmpty {
                known = try await refreshDevices(of: uid).compactMap { d in
                    Data(base64Encoded: d.identityKey).map { (d.deviceId, $0) }
                }
            }
            for (deviceId, identity) in known where !(uid == store.myUid && deviceId == myDevice) {
                out.append(SecretRecipient(imUid: imUid, deviceId: deviceId, identityKey: identity))
            }
        }
        return out
    }

    /// Seals for `recipients`, claiming a bundle for each device this one has no session with.
    func seal(_ plaintext: Data, _ outer: SecretOuter, for recipients: [SecretRecipient]) async throws -> [String: SecretEnvelope] {
        do {
            return try store.sealSecret(plaintext, outer, for: recipients)
        } catch SecretVaultError.needsBundles(let keys) {
            var filled = recipients
            let wanted = Set(keys)
            let byUser = Dictionary(grouping: filled.indices.filter { wanted.contains(filled[$0].envelopeKey) }) { filled[$0].imUid }
            for (imUid, indices) in byUser {
                guard let uid = ConversationIDHelper.uid(fromImUid: imUid) else { continue }
                let bundles = try await api.claimKeys(userId: uid, deviceIds: indices.map { filled[$0].deviceId })
                for i in indices {
                    filled[i].bundle = bundles.first { $0.deviceId == filled[i].deviceId }.flatMap(Self.bundle)
                }
            }
            return try store.sealSecret(plaintext, outer, for: filled)
        }
    }

    static func bundle(_ d: DeviceBundle) -> PrekeyBundle? {
        guard let identity = Data(base64Encoded: d.identityKey), let signing = Data(base64Encoded: d.signingKey),
              let spk = Data(base64Encoded: d.signedPrekey.key), let signature = Data(base64Encoded: d.signedPrekey.signature)
        else { return nil }
        let otk = d.oneTimePrekey.flatMap { p in Data(base64Encoded: p.key).map { PublicPrekey(id: p.id, key: $0) } }
        return PrekeyBundle(identityKey: identity, signingKey: signing, signedPrekey: PublicPrekey(id: d.signedPrekey.id, key: spk),
                            signature: signature, oneTimePrekey: otk)
    }

    /// What a secret send carries besides its plaintext.
    public struct Outer: Sendable {
        public var kind = "msg"
        public var expireAt: Int?
        public var flash = false
        public var blobs: [String] = []
        public init() {}
    }

    /// Sends `plaintext` into a secret chat as `clientMsgID`: sealed for
    /// every current device, and again (same id) when they changed meanwhile.
    public func send(_ plaintext: SecretPlaintext, to conversationId: String, clientMsgID: String, outer o: Outer,
                     deviceId: String?) async throws -> SendMessageResponse {
        try await ensureKeys(deviceId: deviceId)
        guard let deviceId, let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: store.myUid) else {
            throw StoreError.unknownConversation(conversationId)
        }
        var attempt = 0
        while true {
            let recipients = try await recipients(peer: peer, myDevice: deviceId, fresh: attempt > 0)
            let outer = SecretOuter(conversationId: conversationId, clientMsgID: clientMsgID,
                                    sender: SecretWire.envelopeKey(imUid: store.myImUid, deviceId: deviceId), kind: o.kind,
                                    expireAt: o.expireAt, flash: o.flash, blobs: o.blobs)
            let envelopes = try await seal(plaintext.jsonData, outer, for: recipients)
            if o.kind == "ctl" { try store.rememberSecretSent(clientMsgID: clientMsgID, plaintext: plaintext.jsonData) }
            let payload = SecretPayload(from: deviceId, class: o.kind, blobs: o.blobs.isEmpty ? nil : o.blobs,
                                        expireAt: o.expireAt, envelopes: envelopes, flash: o.flash ? true : nil)
            do {
                // Push text never says what is inside.
                return try await api.send(SendMessageRequest(recvID: conversationId, content: payload.jsonText,
                                                             contentType: SecretWire.contentType, clientMsgId: clientMsgID,
                                                             offlinePushInfo: OfflinePushInfo(title: "新消息", desc: "新消息")))
            } catch let e as APIError where e.code == .devicesChanged && attempt < 2 {
                attempt += 1
            }
        }
    }

    // MARK: - Blobs

    /// A picture's, voice's or file's bytes encrypted for upload as
    /// `chat_blob`: AES-256-GCM under a fresh key (nonce ‖ ciphertext ‖ tag).
    static func sealBlob(_ data: Data) throws -> (blob: Data, key: String, sha256: String) {
        let key = SymmetricKey(size: .bits256)
        guard let blob = try AES.GCM.seal(data, using: key).combined else { throw CryptoFailure.decryptionFailed }
        return (blob, key.withUnsafeBytes { Data($0) }.base64EncodedString(), Data(SHA256.hash(data: blob)).base64EncodedString())
    }

    /// The bytes of a blob, once its hash matched.
    static func openBlob(_ blob: Data, key: String, sha256: String) throws -> Data {
        guard Data(SHA256.hash(data: blob)).base64EncodedString() == sha256, let raw = Data(base64Encoded: key), raw.count == 32
        else { throw CryptoFailure.decryptionFailed }
        return try AES.GCM.open(AES.GCM.SealedBox(combined: blob), using: SymmetricKey(data: raw))
    }

    /// A payload's JSON with the blob's key and hash added (what the receiver needs to open it).
    static func addingBlobKey(_ content: String, key: String, sha256: String) -> String {
        guard let obj = JSONObject(jsonText: content) else { return content }
        var fields = obj.fields
        fields["key"] = .string(key)
        fields["sha256"] = .string(sha256)
        return JSONObject(fields: fields).jsonText()
    }

    /// Fetches, checks and decrypts the blobs of messages opened here into the media cache.
    func fetchBlobs(_ blobs: [SecretBlob], into media: MediaCacheService) async {
        for b in blobs where media.localURL(for: b.objectKey) == nil {
            guard let url = try? await api.sign([b.objectKey]).urls[b.objectKey],
                  let blob = try? await api.download(url), let data = try? Self.openBlob(blob, key: b.key, sha256: b.sha256)
            else { continue }
            _ = try? media.save(data, for: b.objectKey, conversationId: b.conversationId)
        }
    }
}

import ChatCore
import ChatCrypto
import ChatStore
import Foundation

/// What a pull leaves to do for secret chats (PROTOCOL.md v4): this
/// device's keys on the server, blobs to fetch and open, retries for what
/// it could not open, reseals for what a peer's device could not, and the
/// devices (safety numbers) of people whose set changed.
extension SyncEngine {
    var secret: SecretChannel { SecretChannel(api: api, store: store) }

    /// Once per run: the keys uploaded (a new login makes them) and the one-time prekeys topped up.
    func ensureSecretKeys() async {
        guard ownLogin.sessionId != nil, !keysChecked.withLock({ $0 }) else { return }
        do {
            try await secret.ensureKeys(deviceId: ownLogin.sessionId)
            try await secret.topUpPrekeys()
            keysChecked.withLock { $0 = true }
        } catch {
            logger.notice("secret-chat keys not on the server yet: \(Self.reason(error))")
        }
    }

    func secretFollowUp(_ changes: AppliedChanges) async {
        let channel = secret
        if let media = mediaCache.withLock({ $0 }) {
            if !changes.secretBlobs.isEmpty { await channel.fetchBlobs(changes.secretBlobs, into: media) }
            for key in changes.expiredObjects { media.remove(objectKey: key) }
        }
        for r in changes.undecryptable {
            do { try await api.secretRetry(conversationId: r.conversationId, clientMsgID: r.clientMsgID) } catch {
                logger.notice("asking for \(r.clientMsgID) again failed: \(Self.reason(error))")
            }
        }
        for r in changes.secretRetries { await reseal(r) }
        for imUid in changes.devicesChanged {
            guard let uid = ConversationIDHelper.uid(fromImUid: imUid) else { continue }
            _ = try? await channel.refreshDevices(of: uid)
        }
        if !changes.secretRetries.isEmpty || changes.prekeysUsed { _ = try? await channel.topUpPrekeys() }
    }

    /// A peer's device could not open my message: if this device still has
    /// its words, a new session with that device (same identity key) carries
    /// them again, bound to the message's original outer fields.
    func reseal(_ r: SecretRetry) async {
        guard let deviceId = ownLogin.sessionId, let target = SecretWire.parseEnvelopeKey(r.deviceKey),
              let uid = ConversationIDHelper.uid(fromImUid: target.imUid),
              let mine = try? store.message(clientMsgID: r.clientMsgID), mine.sendID == store.myImUid,
              mine.contentType != SecretWire.contentType, let seq = mine.seq else { return }
        do {
            // The message as the server holds it: its outer fields are what the envelope binds.
            guard let held = try await api.history(conversationId: r.conversationId, beforeSeq: seq + 1, limit: 1).messages
                .first(where: { $0.clientMsgID == r.clientMsgID }), let payload = SecretPayload.decode(held.content),
                  payload.envelopes[r.deviceKey] != nil else { return }
            let known = try store.secretDevices(imUid: target.imUid)
            guard let bundle = try await api.claimKeys(userId: uid, deviceIds: [target.deviceId]).first,
                  let identity = Data(base64Encoded: bundle.identityKey),
                  known.isEmpty || known.contains(where: { $0.identityKey == identity }) else { return }
            let outer = SecretOuter(conversationId: r.conversationId, clientMsgID: r.clientMsgID,
                                    sender: SecretWire.envelopeKey(imUid: store.myImUid, deviceId: deviceId), kind: payload.class,
                                    expireAt: payload.expireAt, flash: payload.flash == true, blobs: payload.blobs ?? [])
            // A new session (the old ones stay for what that device already sent on them).
            let recipient = SecretRecipient(imUid: target.imUid, deviceId: target.deviceId, identityKey: identity,
                                            bundle: SecretChannel.bundle(bundle), fresh: true)
            // Any of my devices that has the words may do it: the reseal names it as `from`.
            let envelopes = try store.sealSecret(SecretPlaintext(contentType: mine.contentType, content: mine.content).jsonData,
                                                 outer, for: [recipient])
            try await api.secretReseal(SecretResealRequest(conversationId: r.conversationId, clientMsgId: r.clientMsgID,
                                                           from: deviceId, envelopes: envelopes))
        } catch {
            logger.notice("sealing \(r.clientMsgID) again failed: \(Self.reason(error))")
        }
    }
}

import ChatCore
import ChatCrypto
import ChatStore
import Foundation

/// Secret chats for the screens and the CLI (PROTOCOL.md v4): starting one,
/// reactions, edits and the timer as encrypted controls, and the safety number.
extension Session {
    var secret: SecretChannel { SecretChannel(api: api, store: store) }

    /// Makes sure the server has this device's keys (a new login makes them).
    public func ensureSecretKeys() async throws {
        try await secret.ensureKeys(deviceId: credentials.sessionId)
    }

    /// Starts (or finds) the secret chat with `user`; returns its id.
    public func startSecretChat(with user: UserBasicInfo) async throws -> String {
        try await ensureSecretKeys()
        let summary = try await api.startSecret(userId: user.uid)
        try store.saveSummaries([summary])
        try store.saveProfiles([user])
        _ = try? await secret.refreshDevices(of: user.uid)
        return summary.conversationId
    }

    /// A control (reaction, edit, timer) sealed into the secret chat: it
    /// counts for nothing, and the server never learns what it says.
    func sendSecretControl(_ ctl: SecretPlaintext, in id: String) async throws {
        var outer = SecretChannel.Outer()
        outer.kind = "ctl"
        _ = try await secret.send(ctl, to: id, clientMsgID: UUID().uuidString, outer: outer, deviceId: credentials.sessionId)
    }

    func reactSecretly(to clientMsgID: String, in id: String, emoji: String, on: Bool) async throws {
        guard let m = try store.message(clientMsgID: clientMsgID) else { throw StoreError.unknownMessage(clientMsgID) }
        try await sendSecretControl(SecretPlaintext(ctl: "react", target: clientMsgID, emoji: emoji, on: on), in: id)
        var reactions = m.reactions
        _ = reactions.set(emoji, by: store.myImUid, on: on)
        try store.setReactions(clientMsgID: clientMsgID, reactions)
    }

    func editSecretly(_ clientMsgID: String, in id: String, to text: String) async throws {
        guard var m = try store.message(clientMsgID: clientMsgID), m.sendID == store.myImUid,
              m.contentType == ContentType.text else { throw StoreError.unknownMessage(clientMsgID) }
        try await sendSecretControl(SecretPlaintext(ctl: "edit", target: clientMsgID, content: text), in: id)
        m.content = text
        m.editedAt = Int(Date().timeIntervalSince1970 * 1000)
        try store.saveUpdated(m.wire)
    }

    /// Sets the chat's disappearing-message timer (0 turns it off) on both sides.
    public func setSecretTimer(_ seconds: Int, in id: String) async throws {
        try await sendSecretControl(SecretPlaintext(ctl: "timer", seconds: max(0, seconds)), in: id)
        _ = try await sync.pull()
    }

    public func secretTimer(in id: String) throws -> Int { try store.secretTimer(conversationId: id) }

    /// The safety number with `uid` (60 digits), from both people's devices
    /// as the server lists them now; nil when either has none.
    public func safetyNumber(with uid: Int) async throws -> String? {
        for who in [uid, store.myUid] { try await secret.refreshDevices(of: who) }
        let mine = try store.secretDevices(imUid: store.myImUid), theirs = try store.secretDevices(imUid: ConversationIDHelper.imUid(uid))
        guard !mine.isEmpty, !theirs.isEmpty else { return nil }
        return SafetyNumber.digits((store.myUid, mine), (uid, theirs))
    }

    /// Whether the number shown now is the one the user marked verified.
    public func isVerified(_ number: String, with uid: Int) throws -> Bool {
        try store.secretVerified(imUid: ConversationIDHelper.imUid(uid)) == number
    }

    /// Marks the safety number verified (compared in person); a change of
    /// their devices takes the mark off.
    public func markVerified(_ number: String, with uid: Int) throws {
        try store.setSecretVerified(imUid: ConversationIDHelper.imUid(uid), number: number)
    }
}

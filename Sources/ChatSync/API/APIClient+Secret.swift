import ChatCore
import Foundation

/// Secret chats (PROTOCOL.md v4): keys, starting one, retry and reseal.
extension APIClient {
    public func uploadKeys(_ keys: DeviceKeysUpload) async throws { try await noContent(.PUT, "/keys/device", body: keys) }

    public func prekeyCount() async throws -> Int {
        try await json(PrekeyCount.self, .GET, "/keys/count").oneTimePrekeys
    }

    public func devices(userId: Int) async throws -> [DeviceBundle] {
        try await json(DevicesResponse.self, .GET, "/keys/devices?user_id=\(userId)").devices
    }

    public func claimKeys(userId: Int, deviceIds: [String]?) async throws -> [DeviceBundle] {
        try await json(DevicesResponse.self, .POST, "/keys/claim", body: KeyClaimRequest(userId: userId, deviceIds: deviceIds)).devices
    }

    public func startSecret(userId: Int) async throws -> ConversationSummary {
        try await json(ConversationSummary.self, .POST, "/secret/start", body: StartConversationRequest(userId: userId))
    }

    public func secretRetry(conversationId: String, clientMsgID: String) async throws {
        try await noContent(.POST, "/secret/retry", body: SecretMessageRef(conversationId: conversationId, clientMsgId: clientMsgID))
    }

    public func secretReseal(_ request: SecretResealRequest) async throws {
        try await noContent(.POST, "/secret/reseal", body: request)
    }

    public func secretFlashViewed(conversationId: String, clientMsgID: String) async throws {
        try await noContent(.POST, "/secret/flash-viewed",
                            body: SecretMessageRef(conversationId: conversationId, clientMsgId: clientMsgID))
    }
}

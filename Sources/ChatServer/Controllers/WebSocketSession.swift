import ChatCore
import Foundation
import HTTPTypes
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// `GET /chat/ws`: authenticates the upgrade, sends `hello`, forwards the
/// hub's `sync`/`presence`/room frames (through a `SocketWriter`) and
/// answers `ping`.
enum WebSocketSession {
    static func shouldUpgrade(head: HTTPRequest, channel: any Channel, service: ServerServices)
        async throws -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let path = head.path else { return .dontUpgrade }
        let parts = path.split(separator: "?", maxSplits: 1)
        guard parts.first == "/chat/ws" else { return .dontUpgrade }
        var token = AuthMiddleware.token(from: head.headerFields[.authorization])
        if token == nil, parts.count == 2 {
            for pair in parts[1].split(separator: "&") where pair.hasPrefix("token=") {
                token = String(pair.dropFirst(6)).removingPercentEncoding
            }
        }
        // No upgrade without a valid token: the plain route then answers 401.
        guard let token, let uid = try await service.onStorageThreads({ try service.auth.authenticate(token: token) }) else {
            return .dontUpgrade
        }
        return .upgrade([:]) { inbound, outbound, _ in
            try await run(uid: uid, token: token, service: service, channel: channel, inbound: inbound, outbound: outbound)
        }
    }

    static func run(uid: Int, token: String, service: ServerServices, channel: any Channel,
                    inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let outbox = SocketOutbox()
        let id = service.hub.connect(uid: uid, tokenHash: Credentials.tokenHash(token), outbox: outbox)
        // A revoke between the upgrade's check and the line above found no
        // socket to close: asked again now that the hub knows this one. The
        // cursor for `hello` is read after registering too: no notice can fall between.
        let (current, cursor) = await service.onStorageThreads {
            ((try? service.auth.authenticate(token: token)) ?? nil, (try? service.syncLog.currentCursor(uid: uid)) ?? 0)
        }
        if current != uid {
            outbox.send(.close(code: PushCloseCode.signedOut))
        }
        defer {
            outbox.finish()
            service.hub.disconnect(uid: uid, id: id)
        }
        outbox.send(.frame(PushHub.encode(.hello(cursor: cursor))))
        // From here on frames go out; `hello` first, then any `sync` that came meanwhile.
        try await SocketWriter.attach(outbox, to: channel)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The frames go out through the socket's writer; a close
                // handshake through the library's writer, which knows it.
                for await code in outbox.closes {
                    try await outbound.close(.unknown(code), reason: "signed out")
                    return
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: 64 * 1024) {
                    guard case .text(let text) = message,
                          let frame = try? JSONDecoder().decode(PushFrame.self, from: Data(text.utf8)) else { continue }
                    if frame == .ping { outbox.send(.frame(PushHub.encode(.pong))) }
                }
            }
            // Either side ending ends the session.
            _ = try await group.next()
            group.cancelAll()
        }
    }
}

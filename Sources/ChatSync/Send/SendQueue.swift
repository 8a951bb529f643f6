import ChatCore
import ChatStore
import Foundation
import Logging
import Synchronization

/// The send side of seed §四: every outgoing message is written to the
/// store and the outbox before the network is touched, then one serial
/// queue sends the outbox in order, so a slow upload is never overtaken by
/// a later text. After a crash the outbox is resent with the same
/// clientMsgId, which the server dedupes.
public actor SendQueue {
    public struct Policy: Sendable {
        /// The pause before the queue tries its head again after a
        /// transient failure doubles from `backoffBase` up to `backoffCap`;
        /// a wake (the connection is back, a new message) ends it early.
        public var backoffBase: Duration = .milliseconds(500)
        public var backoffCap: Duration = .seconds(30)
        public init() {}
    }

    /// A file to upload before the message can be sent; its objectKey
    /// replaces `placeholder` in the content.
    public struct PendingUpload: Codable, Sendable, Hashable {
        public var path: String
        public var contentType: String
        public var kind: String
        public var placeholder: String
        public init(path: String, contentType: String, kind: String, placeholder: String) {
            self.path = path; self.contentType = contentType; self.kind = kind; self.placeholder = placeholder
        }
    }

    let api: any ChatAPI
    let store: ChatStore
    let media: MediaCacheService?
    let policy: Policy
    let logger: Logger
    let lock: SendLock
    private var worker: Task<Void, Never>?
    private var wakeup: AsyncStream<Void>.Continuation?
    /// The timer that wakes the worker after a transient failure.
    private var retryTimer: Task<Void, Never>?
    /// Upload progress by clientMsgID, 0...1.
    public private(set) var progress: [String: Double] = [:]
    /// Who hears of upload progress, by registration. Outside the actor's
    /// state so that a chat registers without a hop: one that registers
    /// while it opens hears of every upload sent from it.
    private nonisolated let watchers = Mutex<(next: Int, all: [Int: @Sendable (String, Double) -> Void])>((0, [:]))
    /// The upload attempt under way per clientMsgID: chunk reports of an
    /// earlier attempt that arrive late are dropped.
    private var uploadAttempt: [String: Int] = [:]

    /// v4: this login's session, the device its secret messages are sealed from.
    let deviceId: String?

    public init(api: any ChatAPI, store: ChatStore, media: MediaCacheService? = nil, policy: Policy = Policy(),
                deviceId: String? = nil, logger: Logger = Logger(label: "tongban.send")) {
        self.api = api; self.store = store; self.media = media; self.policy = policy; self.logger = logger
        self.deviceId = deviceId
        lock = SendLock(storePath: store.path)
    }

    /// Upload progress as it is reported (message id, 0...1), until the
    /// stream is dropped. Registered at once, without a hop onto the actor.
    public nonisolated func progressUpdates() -> AsyncStream<(messageId: String, value: Double)> {
        let (stream, continuation) = AsyncStream<(messageId: String, value: Double)>.makeStream()
        let id = watchers.withLock { w -> Int in
            w.next += 1
            w.all[w.next] = { continuation.yield(($0, $1)) }
            return w.next
        }
        continuation.onTermination = { [weak self] _ in self?.watchers.withLock { _ = $0.all.removeValue(forKey: id) } }
        return stream
    }

    func report(_ id: String, _ value: Double) {
        // Chunk reports come through tasks and may arrive late: progress
        // only grows, except a 0 that starts an upload over.
        let value = value == 0 ? 0 : max(progress[id] ?? 0, value)
        progress[id] = value
        for h in watchers.withLock({ $0.all.values }) { h(id, value) }
    }

    func reportChunk(_ id: String, attempt: Int, _ value: Double) {
        guard uploadAttempt[id] == attempt else { return }
        report(id, value)
    }

    // MARK: - Enqueue

    /// Sends trimmed text; empty text is ignored (returns nil).
    @discardableResult
    public func sendText(_ text: String, to conversationId: String, receiveId: String? = nil,
                         clientMsgID: String = UUID().uuidString) throws -> StoredMessage? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return try enqueue(.text(trimmed), to: conversationId, receiveId: receiveId, clientMsgID: clientMsgID)
    }

    /// Queues any sendable payload (image, flash image, flash viewed, signal
    /// quote...). `uploads` are uploaded first, in order.
    @discardableResult
    public func enqueue(_ content: MessageContent, to conversationId: String, receiveId: String? = nil,
                        uploads: [PendingUpload] = [], clientMsgID: String = UUID().uuidString) throws -> StoredMessage {
        guard let (type, body) = IMMessageMapper.wireContent(for: content) else {
            throw APIError.badResponse("this kind of message cannot be sent")
        }
        // A group's or room's messages go to it (PROTOCOL.md: recvID is the conversation id).
        let recvID: String
        if ConversationIDHelper.isGroup(conversationId) || ConversationIDHelper.isRoom(conversationId) {
            recvID = conversationId
        } else if let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: store.myUid) {
            recvID = ConversationIDHelper.imUid(peer)
        } else {
            throw StoreError.unknownConversation(conversationId)
        }
        let wire = WireMessage(serverMsgID: "", clientMsgID: clientMsgID, conversationId: conversationId, seq: 0,
                               sendID: store.myImUid, recvID: recvID, contentType: type,
                               content: body, sendTime: Int(Date().timeIntervalSince1970 * 1000))
        let record = StoredMessage(wire: wire, status: .sending)
        let summary = MessageKinds.summary(of: IMMessageMapper.map(wire, currentUID: store.myImUid),
                                           localizer: Localizer(language: .zhHans))
        let pending = uploads.isEmpty ? nil : String(decoding: try JSONEncoder().encode(uploads), as: UTF8.self)
        let outbox = OutboxItem(clientMsgID: clientMsgID, conversationId: conversationId, contentType: type, content: body,
                                receiveId: receiveId, pushDesc: summary, pendingUploads: pending,
                                mediaKind: uploads.first?.kind, createdAt: wire.sendTime)
        try store.insertOutgoing(record, outbox: outbox)
        if !uploads.isEmpty { report(clientMsgID, 0) }
        wakeup?.yield()
        return try store.message(clientMsgID: clientMsgID) ?? record
    }

    /// Puts a failed message back in the queue, same clientMsgID.
    public func retry(clientMsgID: String) throws {
        guard let m = try store.message(clientMsgID: clientMsgID), m.seq == nil,
              m.status == MessageStatus.failed.rawValue else { return }
        let outbox = OutboxItem(clientMsgID: m.clientMsgID, conversationId: m.conversationId, contentType: m.contentType,
                                content: m.content, pushDesc: "", createdAt: m.sendTime)
        try store.requeue(clientMsgID: clientMsgID, outbox: outbox)
        wakeup?.yield()
    }

    /// Drops a failed message that never reached the server, and lets what
    /// its conversation queued after it go. With `force`, also a queued one
    /// the user gives up on (`tongban outbox discard --force`, e.g. one the
    /// server keeps answering with a 5xx), which may have been delivered
    /// already; the caller says so. False when it is not such a message.
    @discardableResult
    public func discard(clientMsgID: String, force: Bool = false) async throws -> Bool {
        let done = try await lock.withLock {
            try force ? store.discardUnsent(clientMsgID: clientMsgID) : store.discardFailed(clientMsgID: clientMsgID)
        } ?? false
        if done { wakeup?.yield() }
        return done
    }

    /// Where a message stands after a one-shot drain (`tongban send`).
    public enum Fate: Sendable, Equatable {
        case sent(seq: Int)
        case failed(reason: String)
        /// Still queued behind a failed send of its conversation.
        case held
        /// Still queued; the last attempt at the queue's head failed for this reason.
        case queued(reason: String)
        /// Not in the store (taken back, or never written).
        case gone
    }

    public func fate(of clientMsgID: String) throws -> Fate {
        guard let m = try store.message(clientMsgID: clientMsgID) else { return .gone }
        if let seq = m.seq { return .sent(seq: seq) }
        if m.status == MessageStatus.failed.rawValue { return .failed(reason: m.errorReason ?? "") }
        if try store.isHeld(clientMsgID: clientMsgID) { return .held }
        return .queued(reason: m.errorReason ?? "")
    }

    /// Takes back a message that the server has not acknowledged and will
    /// not get from this store: `tongban send` without `--queue` reports a
    /// failure only after this. Under the send lock, so no other process is
    /// delivering it meanwhile; returns its fate when it could not be taken
    /// back (it was sent after all).
    public func takeBack(clientMsgID: String) async throws -> Fate {
        try await lock.withLock { () throws -> Fate in
            let now = try fate(of: clientMsgID)
            if case .sent = now { return now }
            // An attempt (from any process) whose request may have reached
            // the server: it stays queued, to be resent with the same id.
            if try store.mayHaveArrived(clientMsgID: clientMsgID) { return now }
            try store.discardUnsent(clientMsgID: clientMsgID)
            return .gone
        } ?? .gone
    }

    /// Revoke through `/chat/message/revoke` (seed §十二): optimistic, rolled
    /// back with the server's reason when it refuses.
    public func revoke(clientMsgID: String) async throws {
        guard let m = try store.message(clientMsgID: clientMsgID) else { throw StoreError.unknownMessage(clientMsgID) }
        guard m.sendID == store.myImUid else {
            throw APIError.server(status: 403, code: .forbidden, rawCode: "forbidden",
                                  message: "only your own messages can be revoked", retryAfter: nil)
        }
        let snapshot = try store.setRevoked(clientMsgID: clientMsgID, revoked: true)
        do {
            _ = try await api.revoke(conversationId: m.conversationId, clientMsgID: clientMsgID)
        } catch {
            try store.setRevoked(clientMsgID: clientMsgID, revoked: false, restoring: snapshot)
            throw error
        }
    }

    // MARK: - The queue

    /// Runs the queue until `stop()`: drains on every wake, and after a
    /// transient failure tries again after a growing pause (or at the next
    /// wake, whichever comes first).
    public func start() {
        guard worker == nil else { return }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wakeup = continuation
        continuation.yield()
        worker = Task {
            var failures = 0
            for await _ in stream {
                switch await self.drain() {
                case .empty: failures = 0
                case .waiting:
                    failures += 1
                    self.retry(after: SyncEngine.backoff(attempt: failures, base: self.policy.backoffBase, cap: self.policy.backoffCap))
                }
            }
        }
    }

    private func retry(after pause: Duration) {
        retryTimer?.cancel()
        retryTimer = Task { [weak self] in
            try? await Task.sleep(for: pause)
            guard !Task.isCancelled else { return }
            await self?.wake()
        }
    }

    public func stop() {
        worker?.cancel()
        retryTimer?.cancel()
        wakeup?.finish()
        worker = nil
        wakeup = nil
        retryTimer = nil
    }

    /// Kicks the queue (e.g. when the connection comes back).
    public func wake() { wakeup?.yield() }

    public enum DrainResult: Sendable, Equatable {
        /// Nothing left that may be sent now (held and failed sends wait for the user).
        case empty
        /// The head (`clientMsgID`) did not go through for a transient
        /// reason; it and what stands behind it stay queued, in order.
        /// `mayHaveArrived` is false only when no connection was made.
        case waiting(reason: String, clientMsgID: String, mayHaveArrived: Bool)

        public var reason: String? {
            if case .waiting(let reason, _, _) = self { return reason }
            return nil
        }
    }

    /// Sends what may be sent, in order, until it is all sent or the head
    /// fails for a transient reason; a refused message is marked failed
    /// and holds its conversation. One pass, no pauses: the worker (or the
    /// next CLI command) decides when to try again.
    /// With `ifIdle`, returns `.empty` at once when another process is
    /// sending (a CLI command that only reads must not wait for an upload).
    public func drain(ifIdle: Bool = false) async -> DrainResult {
        while !Task.isCancelled {
            let attempt = try? await lock.withLock(wait: !ifIdle) { () async -> (OutboxItem, Outcome)? in
                // Read under the lock: another process may have sent it meanwhile.
                guard let next = (try? store.outbox())?.first else { return nil }
                return (next, await sendOne(next))
            }
            guard let (next, outcome) = attempt ?? nil else { return .empty }
            switch outcome {
            case .done: continue
            case .transient(let why, let mayHaveArrived):
                try? store.noteAttempt(clientMsgID: next.clientMsgID, error: why, mayHaveArrived: mayHaveArrived)
                return .waiting(reason: why, clientMsgID: next.clientMsgID, mayHaveArrived: mayHaveArrived)
            }
        }
        return .empty
    }

    enum Outcome { case done, transient(String, mayHaveArrived: Bool) }

    /// What a refused send keeps as its reason: the refusals the screen and
    /// the CLI say in the user's words are kept as markers, the rest as the
    /// server said them.
    static func refusalReason(_ e: APIError) -> String {
        switch e.code {
        case .blocked?: MessageStatus.blockedReason
        case .quota?: MessageStatus.quotaReason
        default: e.description
        }
    }

    func sendOne(_ row: OutboxItem) async -> Outcome {
        var content = row.content
        let secret = ConversationIDHelper.isSecret(row.conversationId)
        do {
            if let pending = row.pendingUploads, let uploads = try? JSONDecoder().decode([PendingUpload].self, from: Data(pending.utf8)) {
                let id = row.clientMsgID, count = Double(uploads.count)
                // Our own upload goes into the conversation's cache folder
                // (seed §三), unless its kind is never kept (a flash image).
                let kept = !MessageKinds.kind(contentType: row.contentType, content: row.content).capabilities.contains(.ephemeral)
                let attempt = (uploadAttempt[id] ?? 0) + 1
                uploadAttempt[id] = attempt
                report(id, 0)
                for (i, u) in uploads.enumerated() {
                    guard let data = FileManager.default.contents(atPath: u.path) else {
                        try? store.markFailed(clientMsgID: row.clientMsgID, reason: "cannot read \(u.path)")
                        return .done
                    }
                    // Bytes taken by the connection count up to 99% of this
                    // file's share; the rest when the server has answered.
                    // A secret chat's media leaves encrypted; its key travels inside the message.
                    let sealed = secret ? try SecretChannel.sealBlob(data) : nil
                    let key = try await api.upload(sealed?.blob ?? data, contentType: secret ? "application/octet-stream" : u.contentType,
                                                   kind: secret ? "chat_blob" : u.kind) { [weak self] fraction in
                        Task { await self?.reportChunk(id, attempt: attempt, (Double(i) + fraction * 0.99) / count) }
                    }.objectKey
                    content = content.replacingOccurrences(of: u.placeholder, with: key)
                    if let sealed { content = SecretChannel.addingBlobKey(content, key: sealed.key, sha256: sealed.sha256) }
                    if kept {
                        _ = try? media?.save(data, for: key, conversationId: row.conversationId)
                    }
                    report(row.clientMsgID, Double(i + 1) / Double(uploads.count))
                }
                uploadAttempt[id] = nil
                try store.updatePendingContent(clientMsgID: row.clientMsgID, content: content)
                // Files we made for the upload are no longer needed.
                for u in uploads where u.path.contains("/pending/") { try? FileManager.default.removeItem(atPath: u.path) }
            }
            if secret {
                try await sendSecret(row, content: content)
                return .done
            }
            let request = SendMessageRequest(recvID: row.conversationId, content: content, contentType: row.contentType,
                                             clientMsgId: row.clientMsgID,
                                             offlinePushInfo: OfflinePushInfo(title: "新消息", desc: row.pushDesc),
                                             receiveId: row.receiveId)
            let response = try await api.send(request)
            try store.markSent(clientMsgID: row.clientMsgID, response: response)
            return .done
        } catch let e as APIError where e.isPermanent && !e.isBadResponse {
            logger.notice("send \(row.clientMsgID) refused: \(e)")
            do {
                try store.markFailed(clientMsgID: row.clientMsgID, reason: Self.refusalReason(e))
            } catch {
                // Not recorded: try again later rather than at once.
                return .transient(SyncEngine.reason(error), mayHaveArrived: true)
            }
            return .done
        } catch let e as APIError {
            // An answer we could not read may be a success: never a refusal.
            // A 429 is the server's own answer that it stored nothing (the
            // limit is checked before the send): this attempt did not arrive.
            let limited = e.code == .rateLimited
            let why = limited ? MessageStatus.rateLimitedReason : SyncEngine.reason(e)
            return .transient(why, mayHaveArrived: !limited && !e.neverReachedServer)
        } catch {
            // A store error, or anything else: nothing says the server did not apply it.
            return .transient(SyncEngine.reason(error), mayHaveArrived: true)
        }
    }

    /// A secret chat's message: sealed for every device and sent as
    /// contentType 300 (its timer, flash flag and blobs outside, for the
    /// server to act on); a flash image's receipt is `/secret/flash-viewed`.
    func sendSecret(_ row: OutboxItem, content: String) async throws {
        let decoded = IMMessageMapper.decode(contentType: row.contentType, content: content).1
        if let target = decoded.flashViewedTarget {
            try await api.secretFlashViewed(conversationId: row.conversationId, clientMsgID: target)
            _ = try store.discardUnsent(clientMsgID: row.clientMsgID)
            return
        }
        let kind = MessageKinds.kind(of: decoded)
        let timer = try store.secretTimer(conversationId: row.conversationId)
        var outer = SecretChannel.Outer()
        outer.flash = kind.capabilities.contains(.ephemeral)
        outer.blobs = MessageKinds.objectKeys(in: decoded)
        if timer > 0 { outer.expireAt = Int(Date().timeIntervalSince1970) + timer }
        let channel = SecretChannel(api: api, store: store)
        let response = try await channel.send(SecretPlaintext(contentType: row.contentType, content: content),
                                              to: row.conversationId, clientMsgID: row.clientMsgID, outer: outer,
                                              deviceId: try deviceId ?? store.secretDeviceId())
        try store.markSent(clientMsgID: row.clientMsgID, response: response)
    }
}

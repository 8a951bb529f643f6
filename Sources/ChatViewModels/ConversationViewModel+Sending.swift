import ChatCore
import ChatStore
import ChatSync
import Foundation

/// Sending, retrying, revoking, flash images and clearing.
extension ConversationViewModel {
    // MARK: - Sending

    /// False when the message could not be queued (the input should keep it).
    @discardableResult
    public func sendText(_ text: String) async -> Bool {
        do {
            guard try await session.sendQueue.sendText(text, to: id, receiveId: conversation.receiveId) != nil else { return true }
            afterSend()
            return true
        } catch {
            fail(error)
            return false
        }
    }

    // The send queue's own media sends: the CLI uses the same ones.
    public func sendImage(path: String, contentType: String, width: Double? = nil, height: Double? = nil, isFlash: Bool = false) async {
        await enqueue { queue, id, receiveId in
            try await queue.enqueueImage(path: path, contentType: contentType, width: width, height: height, isFlash: isFlash,
                                         to: id, receiveId: receiveId)
        }
    }

    public func sendMultiImage(paths: [(path: String, contentType: String)]) async {
        guard !paths.isEmpty else { return }
        await enqueue { queue, id, receiveId in try await queue.enqueueImages(paths, to: id, receiveId: receiveId) }
    }

    public func sendVoice(path: String, contentType: String, durationSec: Int) async {
        await enqueue { queue, id, receiveId in
            try await queue.enqueueVoice(path: path, contentType: contentType, durationSec: durationSec, to: id, receiveId: receiveId)
        }
    }

    /// Any file, uploaded as bytes (`chat_file`) under its safe base name.
    public func sendFile(path: String) async {
        await enqueue { queue, id, receiveId in try await queue.enqueueFile(at: path, to: id, receiveId: receiveId) }
    }

    /// Queues through `write`, then shows the chat at its newest.
    func enqueue(_ write: (SendQueue, String, String?) async throws -> MessageRecord) async {
        do {
            _ = try await write(session.sendQueue, id, conversation.receiveId)
            afterSend()
        } catch { fail(error) }
    }

    /// The message shows at once (one window read; the store observation
    /// reads again when the queue settles it). Queuing woke the queue already.
    func afterSend() {
        scrolled(toBottom: true)
        reload()
        changed()
    }

    public func retry(messageId: String) async {
        do { try await session.sendQueue.retry(clientMsgID: messageId) } catch { fail(error) }
        reload()
        changed()
    }

    /// Drops a failed message (it never reached the server); what its
    /// conversation queued after it is sent.
    public func discard(messageId: String) async {
        do { _ = try await session.sendQueue.discard(clientMsgID: messageId) } catch { fail(error) }
        reload()
        changed()
    }

    /// The signal quote goes once, when the chat was opened from a signal.
    func sendSignalQuote() async {
        guard let reply = conversation.signalReply, let signalId = conversation.signalId else { return }
        let quote = SignalQuotePayload(signalId: signalId, replyContent: reply, signalContent: conversation.signalContent ?? "")
        do {
            try await session.sendQueue.enqueue(.signalQuote(quote), to: id, receiveId: conversation.receiveId)
            try await session.openIM(id, receiveId: conversation.receiveId)
            afterSend()
        } catch { fail(error) }
    }

    // MARK: - Revoke and flash

    /// Own messages only; optimistic, rolled back with the server's reason.
    public func revokeMessage(id messageId: String) async {
        guard let msg = messages.first(where: { $0.id == messageId }), msg.isMe, !msg.isRecalled else { return }
        if let idx = messages.firstIndex(where: { $0.id == messageId }) {
            messages[idx].isRecalled = true
            changed()
        }
        do {
            try await session.sendQueue.revoke(clientMsgID: messageId)
        } catch {
            fail(error)
        }
        reload()
        changed()
    }

    /// After the flash image was shown: destroyed here, then `flash_viewed`.
    public func markFlashViewed(id messageId: String) async {
        guard let msg = messages.first(where: { $0.id == messageId }), msg.type == .flashImage, !msg.isMe, !msg.isDestroyed else { return }
        try? session.destroyFlash(clientMsgID: messageId)
        reload()
        changed()
        do {
            try await session.sendQueue.enqueue(.flashViewed(targetClientMsgID: messageId), to: id)
        } catch { fail(error) }
    }

    public func clearHistory() async {
        do {
            try await session.clearHistory(id)
            hasMoreHistory = false
        } catch { fail(error) }
        reload()
        changed()
    }
}

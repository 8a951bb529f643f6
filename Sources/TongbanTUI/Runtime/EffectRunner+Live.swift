import ChatCore
import ChatSync
import Foundation

/// Signals, typing and read receipts' I/O (PROTOCOL.md v4): each asks the
/// session and answers with events and facts, never words.
extension EffectRunner {
    func signals(_ effect: SignalEffect) async {
        switch effect {
        case .load(let tab):
            switch tab {
            case .feed:
                if let items = await attempt(.signalLoad, { try await self.session.signalFeed() }) { await dispatch(.signals(.feed(items))) }
            case .mine:
                if let items = await attempt(.signalLoad, { try await self.session.mySignals() }) { await dispatch(.signals(.mine(items))) }
            case .inbox:
                if let items = await attempt(.signalLoad, { try await self.session.signalInbox() }) { await dispatch(.signals(.inbox(items))) }
            }
        case .post(let text):
            guard await attempt(.signalPost, { try await self.session.postSignal(text) }) != nil else { return }
            await dispatch(.outcome(.signalDone(effect)))
            await signals(.load(.mine))
        case .reply(let id, let text):
            guard await attempt(.signalReply, { try await self.session.replySignal(id, content: text) }) != nil else {
                await signals(.load(.feed))
                return
            }
            await dispatch(.outcome(.signalDone(effect)))
        case .hide(let id):
            if await attempt(.signalHide, { try await self.session.hideSignal(id) }) != nil { await dispatch(.outcome(.signalDone(effect))) }
        case .report(let id, let reason):
            if await attempt(.signalReport, { try await self.session.reportSignal(id, reason: reason) }) != nil {
                await dispatch(.outcome(.signalDone(effect)))
            }
        case .delete(let id):
            if await attempt(.signalDelete, { try await self.session.deleteSignal(id) }) != nil {
                await dispatch(.outcome(.signalDone(effect)))
            }
            await signals(.load(.mine))
        }
    }

    func live(_ effect: LiveEffect) async {
        switch effect {
        case .typing(let id):
            // A hint only: offline or refused, nobody needs to hear of it.
            try? await session.typing(in: id)
        case .readCounts(let id, let seqs):
            // Quietly too: the marks stay as they were.
            if let counts = try? await session.readCounts(in: id, seqs: seqs) { await dispatch(.readCounts(conversationId: id, counts)) }
        case .readers(let id, let seq):
            guard let answer = await attempt(.readers, { try await self.session.readers(in: id, seq: seq) }) else { return }
            await dispatch(.readersLoaded(conversationId: id, seq: seq, answer))
        }
    }
}

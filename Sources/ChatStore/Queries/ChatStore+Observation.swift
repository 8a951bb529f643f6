import ChatCore
import GRDB

extension ChatStore {
    /// The visible conversation list now and again after every commit that
    /// changes the conversation table (GRDB's ValueObservation). A view model
    /// follows this instead of reloading after each action or sync update:
    /// whoever writes the store, the list on screen follows.
    ///
    /// When the reader falls behind (a flood of commits), only the newest
    /// list is kept. The stream ends when the task reading it is cancelled.
    public func conversationListChanges(localizer: Localizer) -> AsyncThrowingStream<[Conversation], any Error> {
        let observation = ValueObservation.trackingConstantRegion(Self.visibleConversations)
        let records = observation.values(in: dbPool, scheduling: .task, bufferingPolicy: .bufferingNewest(1))
        let (stream, continuation) = AsyncThrowingStream<[Conversation], any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let myImUid = self.myImUid, previews = self.previews
        let task = Task {
            do {
                for try await page in records {
                    continuation.yield(page.map { $0.conversation(myImUid: myImUid, localizer: localizer, memo: previews) })
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

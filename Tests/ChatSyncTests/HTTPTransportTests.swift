@testable import ChatSync
import NIOCore
import Synchronization
import Testing

/// A request handed a connection the server had already closed never went
/// out: it is tried again, and only that failure is.
@Suite struct HTTPTransportTests {
    final class Attempts: Sendable {
        let failures: [any Error]
        let count = Mutex(0)
        init(_ failures: [any Error]) { self.failures = failures }

        func run() throws -> String {
            let n = count.withLock { c in c += 1; return c }
            if n <= failures.count { throw failures[n - 1] }
            return "answer"
        }
    }

    @Test func aClosedPooledConnectionIsTriedAgainOnANewOne() async throws {
        let attempts = Attempts([ChannelError.ioOnClosedChannel, ChannelError.ioOnClosedChannel])
        #expect(try await HTTPClientTransport.againOnAStaleConnection { try attempts.run() } == "answer")
        #expect(attempts.count.withLock { $0 } == 3)
    }

    /// Any other failure may come after the request went out: trying again
    /// could apply it twice, so it is the answer at once.
    @Test func otherFailuresAreNotTriedAgain() async throws {
        let attempts = Attempts([ChannelError.eof])
        await #expect(throws: ChannelError.eof) { try await HTTPClientTransport.againOnAStaleConnection { try attempts.run() } }
        #expect(attempts.count.withLock { $0 } == 1)
    }

    @Test func closedConnectionsWithoutEndStop() async throws {
        let attempts = Attempts(Array(repeating: ChannelError.ioOnClosedChannel, count: 100))
        await #expect(throws: ChannelError.ioOnClosedChannel) {
            try await HTTPClientTransport.againOnAStaleConnection { try attempts.run() }
        }
        #expect(attempts.count.withLock { $0 } == HTTPClientTransport.staleConnectionsTried + 1)
    }
}

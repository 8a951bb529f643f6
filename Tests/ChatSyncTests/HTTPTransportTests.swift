@testable import ChatSync
import Foundation
import NIOCore
import Synchronization
import Testing

/// A request handed a connection the server had already closed never went
/// out: it is tried again, and only that failure is, and only while no byte
/// of its body was taken.
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
        #expect(try await HTTPClientTransport.againOnAStaleConnection(unsent: { true }) { try attempts.run() } == "answer")
        #expect(attempts.count.withLock { $0 } == 3)
    }

    /// Any other failure may come after the request went out: trying again
    /// could apply it twice, so it is the answer at once.
    @Test func otherFailuresAreNotTriedAgain() async throws {
        let attempts = Attempts([ChannelError.eof])
        await #expect(throws: ChannelError.eof) { try await HTTPClientTransport.againOnAStaleConnection(unsent: { true }) { try attempts.run() } }
        #expect(attempts.count.withLock { $0 } == 1)
    }

    /// The same error ends a request whose connection failed mid-body:
    /// part of it went out, so it is the answer.
    @Test func aClosedConnectionAfterTheBodyWasTakenIsTheAnswer() async throws {
        let attempts = Attempts([ChannelError.ioOnClosedChannel])
        await #expect(throws: ChannelError.ioOnClosedChannel) {
            try await HTTPClientTransport.againOnAStaleConnection(unsent: { false }) { try attempts.run() }
        }
        #expect(attempts.count.withLock { $0 } == 1)
    }

    /// Asking for the first chunk counts as taken, even of an empty body
    /// (its end may follow the head out); sending nothing does not.
    @Test func aBodyIsTakenWhenItsFirstChunkIsAskedFor() async throws {
        for data in [Data(), Data(repeating: 7, count: ChunkedBody.chunkSize + 1)] {
            let taken = ChunkedBody.Taken()
            let progress = Mutex<[Int]>([])
            let body = ChunkedBody(data: data, taken: taken) { n in progress.withLock { $0.append(n) } }
            #expect(!taken.isSet)
            var chunks = 0
            for await _ in body { chunks += 1 }
            #expect(taken.isSet)
            #expect(chunks == (data.isEmpty ? 0 : 2))
            #expect(progress.withLock { $0 } == (data.isEmpty ? [] : [ChunkedBody.chunkSize, data.count]))
        }
    }

    @Test func closedConnectionsWithoutEndStop() async throws {
        let attempts = Attempts(Array(repeating: ChannelError.ioOnClosedChannel, count: 100))
        await #expect(throws: ChannelError.ioOnClosedChannel) {
            try await HTTPClientTransport.againOnAStaleConnection(unsent: { true }) { try attempts.run() }
        }
        #expect(attempts.count.withLock { $0 } == HTTPClientTransport.staleConnectionsTried + 1)
    }
}

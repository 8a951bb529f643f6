import ChatCore
import Foundation
import Logging
import Synchronization
import Testing
@testable import ChatServer
@testable import ChatServerPostgres

/// The cluster bus itself: what one node publishes reaches another node
/// whole and in order, however it was bunched on the way.
@Suite(.serialized, .enabled(if: TestServer.postgresAdminURL != nil, "needs TONGBAN_TEST_DATABASE_URL"))
struct BusTests {
    @Test func aBurstOfNoticesArrivesWholeAndInOrder() async throws {
        let url = try #require(try TestServer.freshDatabase())
        let logger = Logger(label: "bus-test")
        let poolA = PostgresPool(configuration: try PostgresURL.parse(url), size: 2, logger: logger)
        let poolB = PostgresPool(configuration: try PostgresURL.parse(url), size: 2, logger: logger)
        defer { poolA.shutdown(); poolB.shutdown() }
        let a = PostgresBus(pool: poolA, logger: logger)
        let b = PostgresBus(pool: poolB, logger: logger)
        let heard = Mutex<[Int]>([])
        let listening = Mutex(false)
        b.start(deliver: { notice in
            // Each notice is one cursor of user 1: its value says which it was.
            if case .cursors(let c) = notice, let v = c[1] { heard.withLock { $0.append(v) } }
        }, listening: { _ in listening.withLock { $0 = true } }, lost: {})
        #expect(await ClusterTests.until { listening.withLock { $0 } }, "node B listens")

        // 300 commits' notices in a row (they pile up behind the first one
        // on its way), then one call with 300 (more than one statement takes).
        for i in 1...300 { a.publish([1: i]) }
        a.publish { (301...600).map { ClusterPayload.payloads(node: a.node, [1: $0])[0] } }
        #expect(await ClusterTests.until { heard.withLock { $0.count } >= 600 })
        #expect(heard.withLock { $0 } == Array(1...600), "every notice once, in the order published")
        await a.stop()
        await b.stop()
    }
}

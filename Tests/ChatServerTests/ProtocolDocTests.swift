import Foundation
import Testing
@testable import ChatServer

/// docs/protocol.md is the account of the protocol another client is built
/// from: its endpoint index names every route the server serves, and
/// nothing else.
@Suite struct ProtocolDocTests {
    /// Served before the router sees the request: the WebSocket upgrade
    /// (`WebSocketSession.shouldUpgrade`) and signed media objects
    /// (`FrontMiddleware`, any path under the prefix).
    static let outsideTheRouter: Set<String> = ["GET /chat/ws", "GET \(MediaController.objectPrefix)*"]

    static func documentedEndpoints() throws -> [String] {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
        let lines = try String(contentsOf: doc, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let heading = lines.firstIndex(of: "## Endpoint index"),
              let header = lines[heading...].firstIndex(where: { $0.hasPrefix("| method | path |") }) else {
            Issue.record("docs/protocol.md has no `## Endpoint index` table")
            return []
        }
        // The rows after the header and its `|---|` line, up to the first line that is not a row.
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { row in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]) }
            return "\(cells[0]) \(cells[1])"
        }
    }

    static func servedEndpoints() async throws -> Set<String> {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-doc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = ServerConfig()
        config.dataDir = dir.path
        config.limits = .unlimited
        let services = try ServerServices(config: config)
        let router = ChatServerApp.buildRouter(service: services, config: config)
        let routes = router.routes.map { route -> String in
            let path = route.path.description
            return "\(route.method) \(path.hasPrefix("/") ? path : "/" + path)"
        }
        await services.shutdown()
        return Set(routes).union(outsideTheRouter)
    }

    @Test func theEndpointIndexNamesExactlyWhatTheServerServes() async throws {
        let documented = try Self.documentedEndpoints()
        let served = try await Self.servedEndpoints()
        #expect(served.count > 60, "the router lists \(served.count) routes")
        #expect(Set(documented).count == documented.count, "listed twice: \(documented.filter { d in documented.filter { $0 == d }.count > 1 })")
        let undocumented = served.subtracting(documented).sorted()
        let unserved = Set(documented).subtracting(served).sorted()
        #expect(undocumented.isEmpty, "served but not in docs/protocol.md's endpoint index: \(undocumented)")
        #expect(unserved.isEmpty, "in docs/protocol.md's endpoint index but not served: \(unserved)")
    }
}

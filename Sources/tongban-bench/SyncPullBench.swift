import AsyncHTTPClient
import ChatCore
import ChatSync
import Foundation
import NIOCore
import NIOPosix

/// A member's sync pull after a busy hour away: `groups` groups, each with
/// its own sender, get `messagesPerGroup` texts each while the member is
/// offline; then the member pages `/chat/sync` (1,000 events a page) from
/// its last cursor to the end. Time and bytes, next to the same number of
/// events from as many one-to-one chats pulled the same way, on the same
/// server: the price of merging the group timelines at read time.
struct SyncPullBench: Sendable {
    var groups = 50
    var messagesPerGroup = 100

    struct Pull { var events = 0; var pages = 0; var bytes = 0; var ms = 0.0; var bodies: [Data] = [] }

    func run() async throws -> [BenchRow] {
        print("sync pull: \(groups) groups × \(messagesPerGroup) messages while a member is away…")
        return try await withServer(.sqlite, name: "pull", connections: groups + 4) { base, http in
            try await measure(base: base, http: http)
        }
    }

    private func measure(base: String, http: HTTPClient) async throws -> [BenchRow] {
        let reader = try await APIClient(baseURL: base, http: http).register(account: "reader", password: "reader-password")
        var senders: [APIClient] = []
        var groupIds: [String] = []
        for k in 0..<groups {
            let auth = try await APIClient(baseURL: base, http: http).register(account: "sender\(k)", password: "sender-password")
            let api = APIClient(baseURL: base, token: auth.token, http: http)
            let group = try await api.createGroup(CreateGroupRequest(name: "群 \(k)", uniqueName: "pull_\(k)", memberIds: [reader.uid]))
            senders.append(api)
            groupIds.append(group.conversationId)
        }
        var cursor = try await pull(base: base, token: reader.token, since: 0, http: http).cursor

        try await sendAll(senders, to: groupIds)
        let (groupPull, afterGroups) = try await pull(base: base, token: reader.token, since: cursor, http: http)
        cursor = afterGroups
        var singles: [String] = []
        for api in senders { singles.append(ConversationIDHelper.make(myUid: try await api.me().uid, targetUid: reader.uid)) }
        try await sendAll(senders, to: singles)
        let (singlePull, _) = try await pull(base: base, token: reader.token, since: cursor, http: http)
        print("sync pull: groups \(groupPull.events) events in \(groupPull.pages) pages, \(fmt(groupPull.ms)) ms, \(groupPull.bytes / 1024) KiB; one-to-one \(singlePull.events) events, \(fmt(singlePull.ms)) ms, \(singlePull.bytes / 1024) KiB")
        let label = "\(groups) one-to-one chats, same count"
        let (direct, decoder) = try readingTimes(singlePull.bodies)
        print("sync pull: reading the one-to-one pages, directly \(fmt(direct)) ms, with JSONDecoder \(fmt(decoder)) ms")
        return [
            BenchRow(figure: "client: reading the \(singlePull.events) events' pages, directly (ms)", ours: direct,
                     reference: decoder, referenceName: "JSONDecoder", goal: "reported", met: nil),
            BenchRow(figure: "sync pull after a busy hour in \(groups) groups: \(groupPull.events) events (ms)", ours: groupPull.ms,
                     reference: singlePull.ms, referenceName: label, goal: "reported", met: nil),
            BenchRow(figure: "sync pull after a busy hour in \(groups) groups (KiB)", ours: Double(groupPull.bytes) / 1024,
                     reference: Double(singlePull.bytes) / 1024, referenceName: label, goal: "reported", met: nil),
        ]
    }

    /// The fastest of five readings of `pages` as the client reads them
    /// (`SyncResponse.decode`) and with Foundation's JSONDecoder, in ms.
    private func readingTimes(_ pages: [Data]) throws -> (direct: Double, decoder: Double) {
        func fastest(_ read: (Data) throws -> SyncResponse) throws -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                let start = DispatchTime.now()
                for page in pages { _ = try read(page) }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
            }
            return best
        }
        let decoder = JSONDecoder()
        return (try fastest(SyncResponse.decode), try fastest { try decoder.decode(SyncResponse.self, from: $0) })
    }

    /// Each sender sends `messagesPerGroup` texts into its conversation, all senders at once.
    private func sendAll(_ senders: [APIClient], to conversations: [String]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (api, conversation) in zip(senders, conversations) {
                group.addTask {
                    for n in 0..<messagesPerGroup {
                        _ = try await api.send(SendMessageRequest(recvID: conversation, content: n % 2 == 0 ? "你好 \(n)" : "hello \(n)",
                                                                  contentType: ContentType.text, clientMsgId: UUID().uuidString))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Pages `/chat/sync` from `since` to the end; the bytes are the bodies' as they came.
    private func pull(base: String, token: String, since: Int, http: HTTPClient) async throws -> (Pull, cursor: Int) {
        var result = Pull()
        var cursor = since
        let start = DispatchTime.now()
        while true {
            var request = HTTPClientRequest(url: "\(base)/chat/sync?since=\(cursor)&limit=1000")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await http.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 64 << 20)
            guard response.status == .ok else {
                throw ServerBench.BenchError(description: "sync: \(response.status) \(String(buffer: body))")
            }
            let data = Data(body.readableBytesView)
            let page = try SyncResponse.decode(data)
            result.bodies.append(data)
            result.bytes += body.readableBytes
            result.events += page.events.count
            result.pages += 1
            cursor = page.cursor
            if !page.hasMore { break }
        }
        result.ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
        return (result, cursor)
    }
}

/// `body` against a fresh `deployment` in a throwaway folder, with an HTTP
/// client of `connections` connections; the server stops and the client
/// shuts down after it, however it ends.
func withServer<T>(_ deployment: Deployment, name: String, connections: Int,
                   _ body: (_ base: String, _ http: HTTPClient) async throws -> T) async throws -> T {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: dir)
    defer { try? FileManager.default.removeItem(at: dir) }
    let running = try deployment.start(dir: dir)
    defer { running.stop() }
    var config = HTTPClient.Configuration()
    config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
    let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: config)
    do {
        let result = try await body("http://127.0.0.1:\(running.port(forUser: 0))", http)
        try? await http.shutdown()
        return result
    } catch {
        try? await http.shutdown()
        throw error
    }
}

import AsyncHTTPClient
import ChatCore
import ChatSync
import Foundation
import NIOCore
import NIOPosix

/// Issue 37's storage seam: `readers` clients page a conversation's history
/// (`GET /chat/messages`, 40 a page) as fast as they are answered for
/// `seconds`, on one PostgreSQL node whose request handlers wait on the
/// database on storage threads of their own, next to the same node with
/// `--storage-threads 0` (handlers on Swift's cooperative pool, one thread
/// per core, as before). Pages/s and p99 per page.
struct SeamBench: Sendable {
    var readers = 64
    var seconds = 3.0
    let adminURL: String

    struct Result { var pages = 0; var perSecond = 0.0; var p99ms = 0.0 }

    func run() async throws -> [BenchRow] {
        print("storage seam: \(readers) history readers for \(fmt(seconds)) s on one PostgreSQL node…")
        let threads = try await measure(Deployment(name: "PostgreSQL, storage threads", postgresAdminURL: adminURL))
        let pool = try await measure(Deployment(name: "PostgreSQL, cooperative pool", postgresAdminURL: adminURL,
                                                serverArguments: ["--storage-threads", "0"]))
        print("storage seam: storage threads \(threads.pages) pages (\(fmt(threads.perSecond))/s, p99 \(fmt(threads.p99ms)) ms); cooperative pool \(pool.pages) pages (\(fmt(pool.perSecond))/s, p99 \(fmt(pool.p99ms)) ms)")
        let name = "handlers on the cooperative pool"
        return [
            BenchRow(figure: "history pages/s, \(readers) readers, PostgreSQL one node", ours: threads.perSecond,
                     reference: pool.perSecond, referenceName: name, goal: "> 1× the pool", met: threads.perSecond > pool.perSecond),
            BenchRow(figure: "p99 per history page, \(readers) readers (ms)", ours: threads.p99ms, reference: pool.p99ms,
                     referenceName: name, goal: "reported", met: nil),
        ]
    }

    private func measure(_ deployment: Deployment) async throws -> Result {
        try await withServer(deployment, name: "seam", connections: readers + 4) { base, http in
            try await load(base: base, http: http)
        }
    }

    private func load(base: String, http: HTTPClient) async throws -> Result {
        let a = try await APIClient(baseURL: base, http: http).register(account: "seam_a", password: "seam-password")
        let b = try await APIClient(baseURL: base, http: http).register(account: "seam_b", password: "seam-password")
        let api = APIClient(baseURL: base, token: a.token, http: http)
        let conversation = ConversationIDHelper.make(myUid: a.uid, targetUid: b.uid)
        for n in 0..<100 {
            _ = try await api.send(SendMessageRequest(recvID: conversation, content: "历史 \(n)", contentType: ContentType.text,
                                                      clientMsgId: "seam-\(n)"))
        }
        let url = "\(base)/chat/messages?conversation_id=\(conversation)&limit=40"
        let token = a.token
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let start = DispatchTime.now()
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<readers {
                group.addTask {
                    var mine: [Double] = []
                    while DispatchTime.now().uptimeNanoseconds < end {
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        var request = HTTPClientRequest(url: url)
                        request.headers.add(name: "Authorization", value: "Bearer \(token)")
                        let response = try await http.execute(request, timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        guard response.status == .ok else { throw ServerBench.BenchError(description: "history: \(response.status)") }
                        mine.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                    }
                    return mine
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all.sorted()
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return Result(pages: latencies.count, perSecond: Double(latencies.count) / elapsed, p99ms: percentile(latencies, 99))
    }
}

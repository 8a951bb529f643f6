import AsyncHTTPClient
import ChatCore
import ChatSync
import Foundation
import Synchronization

/// PROTOCOL.md v4 read counts in a big group, after the group bench's load:
/// half the members read up to one of the owner's messages, then the owner
/// asks for the counts of its newest 100 messages, again and again. A read
/// writes one member row; the counts are worked out from the members' rows
/// when asked, so this is the price of asking.
final class ReadCountsProbe: Sendable {
    private let timings = Mutex<[Double]>([])
    private let asked = Mutex(0)
    static let asks = 50

    func measure(base: String, accounts: [AuthResponse], http: HTTPClient) async throws {
        guard let owner = accounts.first else { return }
        let api = APIClient(baseURL: base, token: owner.token, http: http)
        let conversation = ConversationIDHelper.group(1)
        let page = try await api.history(conversationId: conversation, beforeSeq: nil, afterSeq: nil, limit: 100)
        var seqs = page.messages.filter(Self.owned(by: owner)).map(\.seq)
        // Fewer than 100 of the owner's in the last page (none, when the
        // owner's sends all came early): earlier seqs of theirs make up the hundred.
        var before = page.messages.first?.seq
        while seqs.count < 100, let b = before, b > 1 {
            let older = try await api.history(conversationId: conversation, beforeSeq: b, afterSeq: nil, limit: 100)
            seqs = older.messages.filter(Self.owned(by: owner)).map(\.seq) + seqs
            before = older.messages.first?.seq
            if older.messages.isEmpty { break }
        }
        guard !seqs.isEmpty else { throw ServerBench.BenchError(description: "read counts: the owner sent nothing") }
        seqs = Array(seqs.suffix(100))
        print("read counts: \(accounts.count / 2) members read, then \(Self.asks) asks for \(seqs.count) seqs…")
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 1
            func add() {
                let a = accounts[next]
                let seq = seqs[next % seqs.count]
                next += 2
                group.addTask {
                    _ = try await APIClient(baseURL: base, token: a.token, http: http).markRead(conversationId: conversation, seq: seq)
                }
            }
            for _ in 0..<8 where next < accounts.count { add() }
            while try await group.next() != nil { if next < accounts.count { add() } }
        }
        var ms: [Double] = []
        for _ in 0..<Self.asks {
            let start = DispatchTime.now()
            let counts = try await api.readCounts(conversationId: conversation, seqs: seqs)
            ms.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
            guard counts.counts.count == Set(seqs).count else { throw ServerBench.BenchError(description: "read counts: \(counts.counts.count) answers") }
        }
        timings.withLock { $0 = ms.sorted() }
        asked.withLock { $0 = seqs.count }
    }

    /// The owner's own messages (not the group's notices, which they also "send").
    static func owned(by owner: AuthResponse) -> @Sendable (WireMessage) -> Bool {
        { $0.sendID == owner.imUid && !ContentType.isGroupNotice($0.contentType) }
    }

    func rows(members: Int) -> [BenchRow] {
        let ms = timings.withLock { $0 }
        guard !ms.isEmpty else { return [] }
        print("read counts: p50 \(fmt(percentile(ms, 50))) ms, p99 \(fmt(percentile(ms, 99))) ms")
        return [BenchRow(figure: "read-counts of \(asked.withLock { $0 }) seqs, group of \(members), p99 (ms)", ours: percentile(ms, 99),
                         reference: percentile(ms, 50), referenceName: "its p50", goal: "< 20 ms", met: percentile(ms, 99) < 20)]
    }
}

import ChatCore
import ChatStore
import Foundation
import Spawn
import GRDB

/// Issue 2's store benchmark: ingest N messages over C conversations through
/// the store's sync path, next to the same rows inserted by plain `sqlite3`
/// in one transaction; then time the list and newest-page queries.
struct StoreBench {
    var messages: Int
    var conversations: Int
    var batch = 1000

    func run() throws -> [BenchRow] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-bench-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        // The search index is brought up to date inside the timed ingest
        // below (as the reference builds it in its transaction), not by the
        // store's background indexer.
        let store = try ChatStore(path: dir.appendingPathComponent("store/chat.sqlite").path, myUid: 1,
                                  searchIndexing: SearchIndexTiming(quiet: .seconds(86_400), maxDelay: .seconds(86_400)))
        let perConv = messages / conversations
        // The largest conversation gets the remainder, so "largest" is well defined.
        func conversationId(_ c: Int) -> String { ConversationIDHelper.make(myUid: 1, targetUid: c + 2) }
        func wire(_ i: Int) -> WireMessage {
            let c = min(i / perConv, conversations - 1)
            let seq = i - c * perConv + 1
            let peer = ConversationIDHelper.imUid(c + 2)
            let fromMe = i % 3 == 0
            let text = i % 2 == 0 ? "第\(i)条消息，今天天气不错" : "message number \(i) hello"
            return WireMessage(serverMsgID: "m\(i)", clientMsgID: "c\(i)", conversationId: conversationId(c), seq: seq,
                               sendID: fromMe ? "tb_1" : peer, recvID: fromMe ? peer : "tb_1", contentType: 101,
                               content: text, sendTime: 1_700_000_000_000 + i)
        }

        print("store bench: \(messages) messages over \(conversations) conversations, batches of \(batch)")
        let t0 = DispatchTime.now()
        var i = 0
        while i < messages {
            let end = min(i + batch, messages)
            try store.apply(events: (i..<end).map { .message(wire($0)) }, cursor: end)
            i = end
        }
        let stored = seconds(since: t0)
        while try store.indexSearchBacklog(limit: 10_000) {}
        let ingest = seconds(since: t0)
        let ours = Double(messages) / ingest
        let oursStored = Double(messages) / stored

        // Physical reference: the same schema, the same rows, plain sqlite3, one transaction.
        let refPath = dir.appendingPathComponent("ref.sqlite").path
        let schema = try store.schemaStatements()
        let sqlPath = dir.appendingPathComponent("ref.sql").path
        _ = FileManager.default.createFile(atPath: sqlPath, contents: nil)
        let fh = try FileHandle(forWritingTo: URL(fileURLWithPath: sqlPath))
        fh.write(Data(("PRAGMA journal_mode=WAL;\n" + schema.map { $0 + ";" }.joined(separator: "\n") + "\nBEGIN;\n").utf8))
        var chunk = ""
        for j in 0..<messages {
            let w = wire(j)
            chunk += "INSERT INTO message(clientMsgID,serverMsgID,conversationId,seq,sendID,recvID,contentType,content,sendTime,revoked,flashViewed,isControl,status,searchText) VALUES('\(w.clientMsgID)','\(w.serverMsgID)','\(w.conversationId)',\(w.seq),'\(w.sendID)','\(w.recvID)',101,'\(w.content)',\(w.sendTime),0,0,0,'success','\(w.content)');\n"
            if j % 10_000 == 9_999 { fh.write(Data(chunk.utf8)); chunk = "" }
        }
        // The search index in the same transaction, as the store's indexer
        // builds it: every row with text, then the watermark.
        chunk += """
            INSERT INTO message_fts(rowid, searchText) SELECT id, searchText FROM message WHERE searchText <> '';
            INSERT OR REPLACE INTO search_index_state(id, indexedThrough) VALUES (1, (SELECT MAX(id) FROM message));

            """
        fh.write(Data((chunk + "COMMIT;\n").utf8))
        try fh.close()
        let t1 = DispatchTime.now()
        let sql = try FileHandle(forReadingFrom: URL(fileURLWithPath: sqlPath))
        let ending = try ChildProcess("/usr/bin/sqlite3", [refPath], stdin: .descriptor(sql.fileDescriptor), stdout: .inherit,
                                      stderr: .inherit).waitUntilExit()
        try sql.close()
        let refSeconds = seconds(since: t1)
        let reference = ending.succeeded ? Double(messages) / refSeconds : .nan

        // Queries: median of repeated runs.
        let largest = conversationId(conversations - 1)
        let listUs = try median(200) { _ = try store.conversationList(useCache: false) }
        let cachedUs = try median(200) { _ = try store.conversationList() }
        let pageUs = try median(200) { _ = try store.newestPage(conversationId: largest, limit: 40) }
        let searchUs = try median(20) { _ = try store.search("天气不错", limit: 50) }
        let searchRef = try sqliteSearchMicroseconds(refPath, phrase: "天气不错", runs: 20)

        return [
            BenchRow(figure: "ingest with search index (msgs/s)", ours: ours, reference: reference,
                     referenceName: "sqlite3 CLI, 1 txn", goal: "≥ 1× reference", met: ours >= reference),
            BenchRow(figure: "ingest, stored and shown, index not yet built (msgs/s)", ours: oursStored, goal: "", met: nil),
            BenchRow(figure: "conversation list, from the database (µs)", ours: listUs, goal: "< 2000 µs", met: listUs < 2000),
            BenchRow(figure: "conversation list, unchanged since last read (µs)", ours: cachedUs, goal: "< 2000 µs", met: cachedUs < 2000),
            BenchRow(figure: "newest 40 of largest (µs)", ours: pageUs, goal: "< 2000 µs", met: pageUs < 2000),
            BenchRow(figure: "search every conversation, 50 newest hits (µs)", ours: searchUs, reference: searchRef,
                     referenceName: "sqlite3 CLI, its FTS5 on the same rows", goal: "< 20,000 µs", met: searchUs < 20_000),
        ]
    }
}

/// The same search straight on sqlite3's FTS5 (the reference database:
/// the same schema and rows): the 50 newest messages matching `phrase`,
/// median of `runs`, from the CLI's own timer (user + sys: its wall clock
/// has only millisecond steps). NaN when sqlite3 cannot say.
func sqliteSearchMicroseconds(_ path: String, phrase: String, runs: Int) throws -> Double {
    let query = """
        SELECT m.* FROM message m WHERE m.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH '"\(phrase)"'
        ORDER BY rowid DESC LIMIT 50) ORDER BY m.sendTime DESC, m.id DESC LIMIT 50;
        """
    let script = ".output /dev/null\n.timer on\n" + String(repeating: query + "\n", count: runs)
    let text = String(decoding: try ChildProcess.run("/usr/bin/sqlite3", [path], input: Data(script.utf8)).output, as: UTF8.self)
    // "Run Time: real 0.001 user 0.000812 sys 0.000000"
    var samples: [Double] = []
    for line in text.split(separator: "\n") where line.hasPrefix("Run Time:") {
        let words = line.split(separator: " ")
        guard let u = words.firstIndex(of: "user"), let s = words.firstIndex(of: "sys"),
              let user = Double(words[u + 1]), let sys = Double(words[s + 1]) else { continue }
        samples.append((user + sys) * 1e6)
    }
    guard !samples.isEmpty else { return .nan }
    samples.sort()
    return samples[samples.count / 2]
}

func seconds(since t: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - t.uptimeNanoseconds) / 1e9
}

/// Median wall time of `runs` calls, in microseconds.
func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        let t = DispatchTime.now()
        try body()
        samples.append(seconds(since: t) * 1e6)
    }
    samples.sort()
    return samples[samples.count / 2]
}

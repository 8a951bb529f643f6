import ChatCore
import ChatTesting
import Foundation
import GRDB
import Testing
@testable import ChatStore

let conv = "si_tb_1_tb_2"

func tempDir() -> URL { TestFolders.folder("tongban-store") }

func makeStore(_ dir: URL = tempDir()) throws -> ChatStore {
    try ChatStore(path: dir.appendingPathComponent("u/chat.sqlite").path, myUid: 1)
}

func msg(_ seq: Int, _ text: String = "hi", from: String = "tb_2", client: String? = nil, time: Int? = nil,
         type: Int = 101) -> WireMessage {
    WireMessage(serverMsgID: "m\(seq)", clientMsgID: client ?? "c\(seq)", conversationId: conv, seq: seq,
                sendID: from, recvID: from == "tb_1" ? "tb_2" : "tb_1", contentType: type, content: text,
                sendTime: time ?? (1_000_000 + seq * 1000))
}

/// FTS5's own check that the search index is internally sound. It fails
/// after a 'delete' of a row the index never held (a trigger firing for a
/// row still waiting for the indexer). Its content comparison (rank 1)
/// does not apply: rows with no text are left out of the index on purpose.
func ftsIntegrity(_ store: ChatStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(throws: Never.self, "the search index is sound", sourceLocation: sourceLocation) {
        try store.dbPool.write { db in
            try db.execute(sql: "INSERT INTO message_fts(message_fts, rank) VALUES ('integrity-check', 0)")
        }
    }
}

/// The history ranges recorded for `conv`, as the store reads them back.
func storedRanges(_ store: ChatStore) throws -> [ClosedRange<Int>] {
    try store.dbPool.read { db in
        try Row.fetchAll(db, sql: "SELECT lowSeq, highSeq FROM history_range WHERE conversationId = ? ORDER BY lowSeq",
                         arguments: [conv]).compactMap { HistoryTable.seqRange($0["lowSeq"], $0["highSeq"]) }
    }
}

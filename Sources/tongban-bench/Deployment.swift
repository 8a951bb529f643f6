import Foundation
import Spawn
import GRDB

/// Where the bench's server runs: one node on SQLite (the default), or
/// nodes on a PostgreSQL database (a throwaway cluster's admin URL, from
/// `make bench`), reached directly or through nginx.
struct Deployment: Sendable {
    enum Front: Sendable {
        /// Each user on node `index % nodes`, for sends and socket alike:
        /// with two nodes every message crosses from one node to the other.
        case direct
        /// nginx in front, round robin (deploy/nginx/tongban.conf's proxying, without TLS).
        case nginx
    }
    var name = "SQLite, one node"
    var postgresAdminURL: String?
    var nodes = 1
    var front = Front.direct
    /// More options for every node (`--storage-threads 0`).
    var serverArguments: [String] = []
    /// The limits every node runs with: none (thousands of users sign up
    /// from one address, floods come from one account) unless a bench of
    /// the limits themselves says otherwise.
    var limits: [String] = ["--no-limits"]

    static let sqlite = Deployment()

    /// The running servers, their ports and a reader of their sync log.
    final class Running {
        var servers: [ChildProcess] = []
        var nodePorts: [Int] = []
        var userPorts: [Int] = []
        var nginx: ChildProcess?
        var log: (any LogReader)!
        /// The store is a PostgreSQL cluster (whose CPU a send also costs).
        var onPostgres = false

        func port(forUser i: Int) -> Int { userPorts[i % userPorts.count] }

        func stop() {
            nginx?.send(SIGTERM)
            _ = nginx?.waitUntilExit()
            for s in servers {
                s.send(SIGTERM)
                _ = s.waitUntilExit()
            }
        }
    }

    func start(dir: URL) throws -> Running {
        let running = Running()
        running.onPostgres = postgresAdminURL != nil
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tongban-server")
        var shared: [String] = []
        if let admin = postgresAdminURL {
            let name = "bench_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
            _ = try psql(admin, "CREATE DATABASE \(name)")
            let url = admin.replacingOccurrences(of: #"/[^/]*$"#, with: "/\(name)", options: .regularExpression)
            shared = ["--database", url, "--media-dir", dir.appendingPathComponent("media").path]
            running.log = PostgresLog(url: url)
        }
        for n in 0..<nodes {
            let port = try freeLoopbackPort()
            let server = try ChildProcess(exe.path, ["--port", String(port), "--data-dir", dir.appendingPathComponent("node\(n)").path,
                                                     "--log-level", "error"] + limits + shared + serverArguments,
                                          stderr: .inherit)
            running.servers.append(server)
            running.nodePorts.append(port)
            // Nodes one by one: the first applies the migrations.
            try waitForPort(port)
        }
        if running.log == nil {
            running.log = try SQLiteLog(path: dir.appendingPathComponent("node0/server.sqlite").path)
        }
        running.userPorts = running.nodePorts
        if front == .nginx {
            let port = try freeLoopbackPort()
            running.nginx = try startNginx(dir: dir.appendingPathComponent("nginx"), port: port, upstreams: running.nodePorts)
            try waitForPort(port)
            running.userPorts = [port]
        }
        return running
    }

    /// nginx with deploy/nginx/tongban.conf's proxy settings, on plain HTTP
    /// (the load clients speak raw HTTP on sockets).
    func startNginx(dir: URL, port: Int, upstreams: [Int]) throws -> ChildProcess {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let servers = upstreams.map { "server 127.0.0.1:\($0) max_fails=1 fail_timeout=10s;" }.joined(separator: " ")
        let conf = """
            daemon off; worker_processes auto; pid \(dir.path)/nginx.pid; error_log \(dir.path)/error.log warn;
            events { worker_connections 4096; }
            http {
              access_log off;
              client_body_temp_path \(dir.path)/body; proxy_temp_path \(dir.path)/proxy;
              fastcgi_temp_path \(dir.path)/fastcgi; uwsgi_temp_path \(dir.path)/uwsgi; scgi_temp_path \(dir.path)/scgi;
              upstream tongban { \(servers) keepalive 256; }
              upstream tongban_ws { \(servers) }
              server {
                listen 127.0.0.1:\(port);
                proxy_http_version 1.1;
                proxy_set_header Host $host;
                proxy_next_upstream error timeout non_idempotent;
                location / { proxy_pass http://tongban; proxy_set_header Connection ""; proxy_request_buffering off; }
                location = /chat/ws {
                  proxy_pass http://tongban_ws; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade";
                  proxy_read_timeout 120s;
                }
              }
            }
            """
        let path = dir.appendingPathComponent("nginx.conf").path
        try conf.write(toFile: path, atomically: true, encoding: .utf8)
        return try ChildProcess("/usr/sbin/nginx", ["-p", dir.path, "-c", path, "-e", dir.appendingPathComponent("error.log").path],
                                stdout: .inherit, stderr: .inherit)
    }

    func waitForPort(_ port: Int) throws {
        for _ in 0..<300 {
            if let fd = connectLoopback(port: port) {
                close(fd)
                return
            }
            usleep(20_000)
        }
        throw ServerBench.BenchError(description: "nothing listens on port \(port)")
    }
}

/// What the bench reads from the server's sync log after a run.
protocol LogReader {
    /// Each user's newest cursor.
    func ends() throws -> [Int: Int]
    /// Every entry about a message: its cursor, whose log, the message's
    /// clientMsgID and sender.
    func deliveries(_ visit: (_ cursor: Int, _ uid: Int, _ clientMsgID: String, _ sender: Int) -> Void) throws
}

struct SQLiteLog: LogReader {
    let db: DatabaseQueue

    init(path: String) throws {
        var c = Configuration()
        c.readonly = true
        // The server creates the file; the bench opens it once it is there.
        db = try DatabaseQueue(path: path, configuration: c)
    }

    func ends() throws -> [Int: Int] {
        try db.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT uid, MAX(c) AS c FROM (
                    SELECT uid, cursor AS c, messageId FROM event WHERE uid != 0
                    UNION ALL \(Self.timelineReads)) GROUP BY uid
                """).map { ($0["uid"], $0["c"]) })
        }
    }

    func deliveries(_ visit: (Int, Int, String, Int) -> Void) throws {
        try db.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT d.c, d.uid, m.clientMsgID, m.senderUid FROM (
                    SELECT uid, cursor AS c, messageId AS mid FROM event WHERE uid != 0
                    UNION ALL \(Self.timelineReads)) d JOIN message m ON m.id = d.mid
                """)
            while let row = try rows.next() { visit(row[0], row[1], row[2], row[3]) }
        }
    }
}

extension SQLiteLog {
    /// A group timeline's entries as each member reads them (between the
    /// cursors they joined and left at): `uid, c, mid` rows.
    static let timelineReads = """
        SELECT s.uid, e.cursor, e.messageId FROM event e JOIN timeline_span s ON s.conversationId = e.conversationId
            AND e.cursor > s.fromCursor AND (s.toCursor IS NULL OR e.cursor <= s.toCursor) WHERE e.uid = 0
        """
}

/// Read with psql (the bench links no PostgreSQL driver of its own).
struct PostgresLog: LogReader {
    let url: String

    func ends() throws -> [Int: Int] {
        var out: [Int: Int] = [:]
        let sql = """
            SELECT uid, MAX(c) FROM (SELECT uid, cur AS c, message_id FROM event WHERE uid != 0 UNION ALL \(Self.timelineReads)) d GROUP BY uid
            """
        for line in try psql(url, sql).split(separator: "\n") {
            let f = line.split(separator: "\t")
            if f.count == 2, let u = Int(f[0]), let c = Int(f[1]) { out[u] = c }
        }
        return out
    }

    func deliveries(_ visit: (Int, Int, String, Int) -> Void) throws {
        let sql = """
            SELECT d.c, d.uid, m.client_msg_id, m.sender_uid FROM (
                SELECT uid, cur AS c, message_id AS mid FROM event WHERE uid != 0 UNION ALL \(Self.timelineReads)) d
            JOIN message m ON m.id = d.mid
            """
        for line in try psql(url, sql).split(separator: "\n") {
            let f = line.split(separator: "\t")
            if f.count == 4, let c = Int(f[0]), let u = Int(f[1]), let s = Int(f[3]) { visit(c, u, String(f[2]), s) }
        }
    }
}

/// Runs one statement with psql; returns its rows, tab-separated.
func psql(_ url: String, _ sql: String) throws -> String {
    let (data, ending) = try ChildProcess.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
    guard ending.succeeded else { throw ServerBench.BenchError(description: "psql failed: \(sql)") }
    return String(decoding: data, as: UTF8.self)
}

extension PostgresLog {
    /// As `SQLiteLog.timelineReads`.
    static let timelineReads = """
        SELECT s.uid, e.cur, e.message_id FROM event e JOIN timeline_span s ON s.conversation_id = e.conversation_id
            AND e.cur > s.from_cur AND (s.to_cur IS NULL OR e.cur <= s.to_cur) WHERE e.uid = 0
        """
}

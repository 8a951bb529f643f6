import ChatCore
import ChatStore
import ChatSync
import Foundation
import Glibc

/// Helpers for the client benchmarks (Tests/bench/clients.sh): a peer that
/// floods, and a user store filled with history.
enum ClientTools {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func option(_ args: [String], _ name: String) -> String? {
        guard let i = args.firstIndex(of: "--" + name), i + 1 < args.count else { return nil }
        return args[i + 1]
    }

    static func require(_ args: [String], _ name: String) throws -> String {
        guard let v = option(args, name) else { throw Failure(description: "missing --\(name)") }
        return v
    }

    /// `flood --server URL --account A --password P (--to B | --group UNIQUE) --count N --marker END [--window W] [--rate R]`:
    /// sends N texts (half Chinese, half ASCII), W (default 32) in flight at
    /// a time on W keep-alive connections, as fast as the server
    /// acknowledges them; the last one, sent alone after all others, carries
    /// `MARKER-(N-1)`. Logging in goes through the real client API; the sends
    /// go over raw sockets on one poll loop, so the sender takes little of
    /// the CPU the client under test and the server share.
    static func flood(_ args: [String]) async throws {
        let server = try require(args, "server")
        let window = max(1, Int(option(args, "window") ?? "") ?? 32)
        guard let url = URL(string: server), url.host == "127.0.0.1" || url.host == "localhost", let port = url.port else {
            throw Failure(description: "flood sends over loopback: --server http://127.0.0.1:PORT")
        }
        let api = APIClient(baseURL: server)
        let auth = try await api.login(account: try require(args, "account"), password: try require(args, "password"))
        api.token = auth.token
        let conv: String
        if let unique = option(args, "group") {
            conv = try await api.lookupGroup(uniqueName: unique).conversationId
        } else {
            let to = try require(args, "to")
            let found = try await api.searchUsers(to)
            guard let peer = found.first(where: { $0.username == to }) ?? found.first else {
                throw Failure(description: "no user \(to)")
            }
            conv = ConversationIDHelper.make(myUid: auth.uid, targetUid: peer.uid)
        }
        let count = Int(option(args, "count") ?? "") ?? 10_000
        let marker = option(args, "marker") ?? "END"
        let start = DispatchTime.now()
        let tag = start.uptimeNanoseconds
        func body(_ n: Int) -> [UInt8] {
            var text = n % 2 == 0 ? "你好世界 \(n)" : "hello world \(n)"
            if n == count - 1 { text = "\(marker)-\(n)" }
            return KeepAliveSender.body(conversationId: conv, text: text, clientMsgId: "flood-\(tag)-\(n)")
        }
        // As fast as the server accepts them: `window` sends in flight (an
        // IRC client does not wait for the server at all), then the marker
        // alone, so it is the conversation's last message.
        var next = 0
        let all = try (0..<min(window, max(count - 1, 1))).map { _ in
            try KeepAliveSender(port: port, token: auth.token) {
                guard next < count - 1 else { return nil }
                defer { next += 1 }
                return (next, body(next))
            }
        }
        // `--rate R`: R sends a second in all, spread over the connections
        // (the same arrival rate as another run, for a fair comparison).
        if let rate = option(args, "rate").flatMap(Double.init), rate > 0 {
            let interval = max(1, Int((Double(all.count) * 1000 / rate).rounded()))
            let now = monotonicNanos()
            for (k, sender) in all.enumerated() {
                sender.pacer = .spread(index: k, count: all.count, intervalMs: interval)
                sender.pacer.begin(at: now)
            }
        }
        try pollUntilDone(all)
        if count > 0 {
            var sent = false
            let last = try KeepAliveSender(port: port, token: auth.token) {
                guard !sent else { return nil }
                sent = true
                return (count - 1, body(count - 1))
            }
            try pollUntilDone([last])
        }
        print("sent \(count) in \(String(format: "%.2f", seconds(since: start))) s")
    }

    /// Drives keep-alive senders on this thread until each has nothing left.
    static func pollUntilDone(_ senders: [KeepAliveSender]) throws {
        var fds = senders.map { pollfd(fd: $0.fd, events: 0, revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            for s in senders where s.wantsWrite { s.pump() }
            if let failed = senders.first(where: { $0.failure != nil }) { throw Failure(description: failed.failure ?? "") }
            if senders.allSatisfy(\.done) { return }
            for (k, s) in senders.enumerated() {
                fds[k].events = Int16(POLLIN) | (s.wantsWrite ? Int16(POLLOUT) : 0)
                fds[k].revents = 0
            }
            // Paced senders wake for their next send; otherwise silence means the server is stuck.
            let timeout = senders.map { $0.pollTimeout(cap: 10_000) }.min() ?? 10_000
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready == 0 && timeout >= 10_000 { throw Failure(description: "tongban-server answered nothing for 10 s") }
            guard ready > 0 else { continue }
            for (k, s) in senders.enumerated() where fds[k].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                s.pull(into: &buffer)
            }
        }
    }

    /// `mkstore --data-dir D --server URL --account A [--password P]
    /// --conversations C --messages N [--local]`: logs A in under D, then
    /// either has C peers really send N messages in all (default), or with
    /// `--local` writes N synthetic messages over C conversations straight
    /// into A's store (for the million-message startup figure).
    static func mkstore(_ args: [String]) async throws {
        let server = try require(args, "server")
        let dataDir = try require(args, "data-dir")
        let account = try require(args, "account")
        let password = option(args, "password") ?? "tongban-demo"
        let conversations = max(1, Int(option(args, "conversations") ?? "") ?? 50)
        let messages = max(conversations, Int(option(args, "messages") ?? "") ?? 5000)
        let paths = StorePaths.resolve(explicitDataDir: dataDir, environment: ProcessInfo.processInfo.environment)
        let creds = try await Session.login(server: server, account: account, password: password, paths: paths)
        // The bench seeds the store itself, as a history of months would
        // have filled it: the client's own code only ever writes through
        // its session.
        let store = try ChatStore(paths: paths, server: creds.server, uid: creds.uid)
        let perConv = messages / conversations
        let start = DispatchTime.now()
        if args.contains("--local") {
            var profiles: [UserBasicInfo] = []
            var batch: [SyncEvent] = []
            for c in 0..<conversations {
                let peerUid = 1_000_000 + c
                profiles.append(UserBasicInfo(uid: peerUid, username: "bench peer \(c)"))
                let conv = ConversationIDHelper.make(myUid: creds.uid, targetUid: peerUid)
                for s in 1...perConv {
                    let fromMe = s % 3 == 0
                    let text = s % 2 == 0 ? "第\(s)条消息，今天天气不错" : "message number \(s) hello"
                    batch.append(.message(WireMessage(
                        serverMsgID: "bench-\(c)-\(s)", clientMsgID: "bench-\(c)-\(s)", conversationId: conv, seq: s,
                        sendID: fromMe ? creds.imUid : ConversationIDHelper.imUid(peerUid),
                        recvID: fromMe ? ConversationIDHelper.imUid(peerUid) : creds.imUid, contentType: 101, content: text,
                        sendTime: 1_763_000_000_000 + c * 1000 + s)))
                    if batch.count == 2000 {
                        try store.apply(events: batch, cursor: 0)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
            }
            try store.apply(events: batch, cursor: 0)
            try store.saveProfiles(profiles)
        } else {
            for c in 0..<conversations {
                let name = "benchpeer\(c)"
                let peerAPI = APIClient(baseURL: server)
                let auth: AuthResponse
                do { auth = try await peerAPI.register(account: name, password: "bench-password") } catch {
                    auth = try await peerAPI.login(account: name, password: "bench-password")
                }
                peerAPI.token = auth.token
                let conv = ConversationIDHelper.make(myUid: creds.uid, targetUid: auth.uid)
                for s in 0..<perConv {
                    _ = try await peerAPI.send(SendMessageRequest(recvID: conv, content: s % 2 == 0 ? "你好 \(s)" : "hello \(s)",
                                                                  contentType: 101, clientMsgId: "mk-\(c)-\(s)"))
                }
            }
            let session = try Session(credentials: creds, paths: paths)
            try await session.refreshConversations()
            try await session.sync.pull()
        }
        // Searchable at once, like a store that has been in use a while (the
        // background indexer would otherwise do it at the client's start).
        while try store.indexSearchBacklog(limit: 10_000) {}
        print("store ready: \(conversations) conversations, \(perConv * conversations) messages in \(String(format: "%.1f", seconds(since: start))) s")
    }

    /// `mkgroup --server URL --account A [--password P] --unique U --name NAME
    /// --members N [--with ACCOUNT]...`: A creates group U of N members: A,
    /// the `--with` accounts and as many registered bench users as it takes.
    static func mkgroup(_ args: [String]) async throws {
        let server = try require(args, "server")
        let members = max(2, Int(option(args, "members") ?? "") ?? 200)
        let api = APIClient(baseURL: server)
        let auth = try await api.login(account: try require(args, "account"), password: option(args, "password") ?? "tongban-demo")
        api.token = auth.token
        var uids: [Int] = []
        for (i, arg) in args.enumerated() where arg == "--with" && i + 1 < args.count {
            let account = args[i + 1]
            guard let user = try await api.searchUsers(account).first(where: { $0.account == account }) else {
                throw Failure(description: "no user with the account \(account)")
            }
            uids.append(user.uid)
        }
        let start = DispatchTime.now()
        var n = 0
        while uids.count < members - 1 {
            let account = "groupbench\(n)"
            n += 1
            let peer = APIClient(baseURL: server)
            let joined: AuthResponse
            do { joined = try await peer.register(account: account, password: "bench-password") } catch {
                joined = try await peer.login(account: account, password: "bench-password")
            }
            uids.append(joined.uid)
        }
        let group = try await api.createGroup(CreateGroupRequest(name: try require(args, "name"), uniqueName: try require(args, "unique"),
                                                                 memberIds: uids))
        print("group \(group.conversationId) of \(group.memberCount) members in \(String(format: "%.1f", seconds(since: start))) s")
    }
}

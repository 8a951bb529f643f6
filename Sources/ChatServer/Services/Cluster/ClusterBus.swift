import ChatCore
import Foundation

/// How a node of a cluster hears the others (`ClusterService`): which
/// users' logs grew, which tokens a logout ended, who is online where. The
/// shared database's backend provides it (ChatServerPostgres's
/// `PostgresBus`, over LISTEN/NOTIFY).
package protocol ClusterBus: Sendable {
    /// This node's name among the others.
    var node: String { get }
    /// Sends the payloads `make` returns, in the order of the calls, off the
    /// caller's thread; `make` runs just before they are sent.
    func publish(_ make: @escaping @Sendable () -> [String])
    /// The nodes listening now: a node killed without a word is not among them.
    func liveNodes() throws -> Set<String>
    /// Listens until `stop()`: each notice goes to `deliver`. `listening`
    /// runs each time the listener is (again) in place - `true` after a
    /// reconnection, when notices sent meanwhile are lost - and `lost` each
    /// time it is not.
    func start(deliver: @escaping @Sendable (ClusterNotice) -> Void, listening: @escaping @Sendable (_ again: Bool) -> Void,
               lost: @escaping @Sendable () -> Void)
    /// Stops listening; returns when its connections are closed.
    func stop() async
}

extension ClusterBus {
    /// Sends `cursors` to the other nodes, in commit order, off the caller's thread.
    package func publish(_ cursors: [Int: Int]) {
        guard !cursors.isEmpty else { return }
        let payloads = ClusterPayload.payloads(node: node, cursors)
        publish { payloads }
    }
}

/// What a notice says.
package enum ClusterNotice: Equatable, Sendable {
    /// Users' newest cursors, from another node.
    case cursors([Int: Int])
    /// A logout (on any node, this one too) ended the token with this hash.
    case logout(tokenHash: String)
    /// A user's first socket on another node opened, or their last one there closed.
    case presence(node: String, uid: Int, online: Bool)
    /// Another node (again) listens and asks who is online where.
    case hello(node: String)
    /// Users with a socket on another node (its answer to a hello).
    case online(node: String, uids: [Int])
    /// A room's frame for these users' sockets, by reference.
    case room(ref: RoomFrameRef, uids: [Int])
    /// One of the two blocked the other: each looks offline to the other's sockets.
    case hidden(Int, Int)
    /// A frame that lives only on sockets (typing, read_changed) for these users.
    case live(PushFrame, uids: [Int])
}

/// The notices' text: short lines of words, under PostgreSQL's 8000-byte payload limit.
package enum ClusterPayload {
    package static let maxPayload = 7_000

    /// Payloads for `cursors`: `NODE uid:cursor uid:cursor ...`, split to fit.
    package static func payloads(node: String, _ cursors: [Int: Int]) -> [String] {
        split(node, cursors.sorted(by: { $0.key < $1.key }).map { "\($0.key):\($0.value)" })
    }

    /// `head item item ...`, split into as many payloads as it takes.
    package static func split(_ head: String, _ items: [String]) -> [String] {
        var out: [String] = []
        var current = head
        for item in items {
            if current.utf8.count + 1 + item.utf8.count > maxPayload {
                out.append(current)
                current = head
            }
            current += " " + item
        }
        if current.count > head.count { out.append(current) }
        return out
    }

    /// The notice a logout's transaction sends (`logout HASH`). A node name
    /// is eight hex digits, so it never reads as one of the keywords.
    package static func logoutPayload(tokenHash: String) -> String { "logout " + tokenHash }
    package static func presencePayload(node: String, uid: Int, online: Bool) -> String {
        "presence \(node) \(online ? "+" : "-")\(uid)"
    }
    package static func helloPayload(node: String) -> String { "hello " + node }
    package static func hiddenPayload(node: String, _ a: Int, _ b: Int) -> String { "hidden \(node) \(a) \(b)" }
    /// `online NODE uid uid ...`, split to fit; an empty list says so too.
    package static func onlinePayloads(node: String, uids: [Int]) -> [String] {
        uids.isEmpty ? ["online " + node] : split("online " + node, uids.sorted().map(String.init))
    }

    /// `room NODE KIND ID uid uid ...` (KIND: m a new message, u a message
    /// now, i a room's info), split to fit.
    package static func roomPayloads(node: String, ref: RoomFrameRef, uids: [Int]) -> [String] {
        let head: String
        switch ref {
        case .message(let id): head = "room \(node) m \(id)"
        case .update(let id): head = "room \(node) u \(id)"
        case .info(let rid): head = "room \(node) i \(rid)"
        }
        return split(head, uids.map(String.init))
    }

    /// `typing NODE CONV IMUID TTL uid ...` or `readchg NODE CONV uid ...`,
    /// split to fit; nil for frames that are not live ones. Conversation
    /// and IM ids never hold a space.
    package static func livePayloads(node: String, frame: PushFrame, uids: [Int]) -> [String] {
        let head: String
        switch frame {
        case .typing(let conv, let user, let ttl): head = "typing \(node) \(conv) \(user) \(ttl)"
        case .readChanged(let conv): head = "readchg \(node) \(conv)"
        default: return []
        }
        return split(head, uids.map(String.init))
    }

    /// What a payload says; nil for a notice of this node's own or a malformed one.
    package static func parse(_ payload: String, ownNode: String) -> ClusterNotice? {
        let parts = payload.split(separator: " ")
        guard let first = parts.first else { return nil }
        if first == "logout" { return parts.count == 2 ? .logout(tokenHash: String(parts[1])) : nil }
        if first == "room" {
            guard parts.count >= 5, parts[1] != ownNode, let id = Int64(parts[3]) else { return nil }
            let uids = parts.dropFirst(4).compactMap { Int($0) }
            guard uids.count == parts.count - 4 else { return nil }
            switch parts[2] {
            case "m": return .room(ref: .message(id), uids: uids)
            case "u": return .room(ref: .update(id), uids: uids)
            case "i": return .room(ref: .info(Int(id)), uids: uids)
            default: return nil
            }
        }
        if first == "typing" || first == "readchg" {
            let fixed = first == "typing" ? 5 : 3
            guard parts.count > fixed, parts[1] != ownNode else { return nil }
            let uids = parts.dropFirst(fixed).compactMap { Int($0) }
            guard uids.count == parts.count - fixed else { return nil }
            let conv = String(parts[2])
            if first == "readchg" { return .live(.readChanged(conversationId: conv), uids: uids) }
            guard let ttl = Int(parts[4]) else { return nil }
            return .live(.typing(conversationId: conv, userId: String(parts[3]), ttlMs: ttl), uids: uids)
        }
        if ["presence", "hello", "online", "hidden"].contains(first) {
            guard parts.count >= 2, parts[1] != ownNode else { return nil }
            let node = String(parts[1])
            switch first {
            case "hidden":
                guard parts.count == 4, let a = Int(parts[2]), let b = Int(parts[3]) else { return nil }
                return .hidden(a, b)
            case "presence":
                guard parts.count == 3, let sign = parts[2].first, "+-".contains(sign),
                      let uid = Int(parts[2].dropFirst()) else { return nil }
                return .presence(node: node, uid: uid, online: sign == "+")
            case "hello":
                return parts.count == 2 ? .hello(node: node) : nil
            default:
                let uids = parts.dropFirst(2).compactMap { Int($0) }
                return uids.count == parts.count - 2 ? .online(node: node, uids: uids) : nil
            }
        }
        guard first != ownNode else { return nil }
        var cursors: [Int: Int] = [:]
        for item in parts.dropFirst() {
            let pair = item.split(separator: ":")
            guard pair.count == 2, let uid = Int(pair[0]), let cursor = Int(pair[1]) else { return nil }
            cursors[uid] = max(cursors[uid] ?? 0, cursor)
        }
        return .cursors(cursors)
    }
}

import ChatCore
import Foundation
import Glibc
import Testing
@testable import ChatServer

/// A room's reader that stops reading holds nobody else up, and gets what
/// was said, in order, when it reads again.
@Suite struct StalledSocketTests {
    @Test(.timeLimit(.minutes(2))) func aReaderThatStopsReadingGetsEverythingInOrderAndHoldsNobodyUp() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (talker, talkerAuth) = try await server.user()
        let talkerSocket = try await WSProbe.open(port: server.port, token: talkerAuth.token)
        let (stalled, stalledAuth) = try await server.user()
        let socket = try RawWebSocket(port: server.port, token: stalledAuth.token)
        defer { Task { await talkerSocket.close() } }
        let unique = "stall_\(Int.random(in: 0..<1_000_000))"
        let room = try await talker.createRoom("慢", unique: unique).decode(RoomInfo.self)
        #expect(try await stalled.enterRoom(unique).status == 200)

        // 120 frames of 50 KB: far more than the loopback socket's buffers
        // hold for a reader with a 4 KB receive buffer that reads nothing.
        let text = String(repeating: "👨‍👩‍👧‍👦", count: 2_000)
        let count = 120
        for n in 0..<count {
            let reply = try await talker.sendText(room.conversationId, text, id: "big-\(n)")
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        }
        let last = await talkerSocket.wait(timeout: .seconds(60)) { roomMessage($0)?.clientMsgID == "big-\(count - 1)" }
        #expect(last != nil, "the others heard everything while one reader read nothing")

        let said = await socket.readRoomMessages { $0.last?.clientMsgID == "big-\(count - 1)" }
            .filter { $0.clientMsgID.hasPrefix("big-") }
        #expect(said.map(\.clientMsgID) == (0..<count).map { "big-\($0)" }, "everything, in order, once it read again")
        #expect(said.allSatisfy { $0.content.contains(text) })
        socket.close()
    }
}

/// A WebSocket client over a bare TCP socket with a small receive buffer,
/// so that it can stop reading (the library's client always reads).
private final class RawWebSocket: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, token: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var wait = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = "GET /chat/ws?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
        let end = Array("\r\n\r\n".utf8)
        while buffer.firstRange(of: end) == nil {
            guard readMore() else { throw POSIXError(.EIO) }
        }
        let head = buffer.firstRange(of: end)!
        let status = String(decoding: buffer[..<head.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<head.upperBound)
        guard status.hasPrefix("HTTP/1.1 101") else { throw POSIXError(.EPROTO) }
    }

    /// Reads (on a thread of its own: the reads block) until `done` says so
    /// or nothing comes for 30 s; returns the room messages among the frames.
    func readRoomMessages(until done: @escaping @Sendable ([WireMessage]) -> Bool) async -> [WireMessage] {
        await withCheckedContinuation { c in
            Thread {
                var said: [WireMessage] = []
                while !done(said) {
                    guard let text = self.nextText() else { break }
                    if let frame = try? JSONDecoder().decode(PushFrame.self, from: Data(text.utf8)), let m = roomMessage(frame) {
                        said.append(m)
                    }
                }
                c.resume(returning: said)
            }.start()
        }
    }

    func close() { Glibc.close(fd) }

    private func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }

    /// The next text frame's payload (the server's frames are whole and unmasked).
    private func nextText() -> String? {
        while true {
            if buffer.count >= 2 {
                var length = Int(buffer[1] & 0x7f), header = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    header = 4
                } else if length == 127, buffer.count >= 10 {
                    length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    header = 10
                }
                if length < 126 || header > 2, buffer.count >= header + length {
                    let opcode = buffer[0] & 0x0f
                    let payload = Array(buffer[header..<(header + length)])
                    buffer.removeSubrange(..<(header + length))
                    if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
                    if opcode == 0x8 { return nil }
                    continue
                }
            }
            guard readMore() else { return nil }
        }
    }
}

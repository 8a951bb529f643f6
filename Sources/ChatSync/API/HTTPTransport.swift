import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// One request as `APIClient` sends it.
public struct HTTPTransportRequest: Sendable {
    public var method: String
    /// Absolute: the base URL, the path and the query.
    public var url: String
    public var headers: [String: String] = [:]
    public var body: Data?

    public init(method: String, url: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method; self.url = url; self.headers = headers; self.body = body
    }
}

/// A server's answer, whatever its status.
public struct HTTPTransportResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status; self.headers = headers; self.body = body
    }

    /// `Retry-After` in seconds, when the server gave one.
    var retryAfter: Int? {
        headers.first { $0.key.lowercased() == "retry-after" }.flatMap { Int($0.value) }
    }
}

/// What carries `APIClient`'s requests: HTTP over the network, or (in
/// tests) the real server's router in the same process, so the client's
/// tests run every rule of the one server instead of a copy of them.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; throws only when no answer came (what
    /// `APIClient.classify` sorts into "never reached" or "may have
    /// arrived"). `sent`, when given, hears how many bytes of the body have
    /// gone out so far; an answer longer than `limit` bytes is an error.
    func exchange(_ request: HTTPTransportRequest, timeout: TimeAmount, limit: Int,
                  sent: (@Sendable (Int) -> Void)?) async throws -> HTTPTransportResponse
    /// Whether the server it reaches can also be reached by a WebSocket
    /// (the push socket); when not, the sync engine polls.
    var reachesSockets: Bool { get }
}

extension HTTPTransport {
    public var reachesSockets: Bool { true }
}

/// Requests over HTTP(S) with AsyncHTTPClient.
public struct HTTPClientTransport: HTTPTransport {
    private let client: @Sendable () -> HTTPClient
    var http: HTTPClient { client() }

    public init(http: HTTPClient) { client = { http } }

    /// The client `make` gives, asked for at the first request: the
    /// full-screen client draws its first frame from the store before the
    /// HTTP client and its event loop threads exist.
    public init(makingAtFirstUse make: @escaping @Sendable () -> HTTPClient) { client = make }

    public func exchange(_ request: HTTPTransportRequest, timeout: TimeAmount, limit: Int,
                         sent: (@Sendable (Int) -> Void)?) async throws -> HTTPTransportResponse {
        var req = HTTPClientRequest(url: request.url)
        req.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { req.headers.add(name: name, value: value) }
        // A body always goes as a stream: the client takes its first chunk
        // only once the head is written, so an untaken body means nothing
        // went out (what a second try on a new connection relies on).
        let taken = ChunkedBody.Taken()
        if let body = request.body {
            let chunks = ChunkedBody(data: body, taken: taken, sent: sent ?? { _ in })
            req.body = .stream(chunks, length: .known(Int64(body.count)))
        }
        let resp = try await Self.againOnAStaleConnection(unsent: { !taken.isSet }) {
            try await http.execute(req, timeout: timeout)
        }
        let bytes = try await resp.body.collect(upTo: limit)
        var headers: [String: String] = [:]
        for (name, value) in resp.headers { headers[name] = value }
        return HTTPTransportResponse(status: Int(resp.status.code), headers: headers, body: Data(bytes.readableBytesView))
    }
}

extension HTTPClientTransport {
    /// How many closed connections in a row a request may be handed: the
    /// pool keeps at most 8 to one host (AsyncHTTPClient's soft limit).
    static let staleConnectionsTried = 8

    /// Runs `attempt` again when the pooled connection it was given had
    /// closed before the request was written (the server restarted, or shut
    /// its idle connections while the pool still held them). `unsent` says
    /// that no byte of the body was taken: the same error also ends a
    /// request whose connection failed mid-body, which is not tried again.
    /// Another try cannot apply anything twice, and its failure (a refused
    /// connect, once the pool is out of closed connections) is the true answer.
    static func againOnAStaleConnection<T>(unsent: () -> Bool, _ attempt: () async throws -> T) async throws -> T {
        var stale = 0
        while true {
            do {
                return try await attempt()
            } catch ChannelError.ioOnClosedChannel where stale < staleConnectionsTried && unsent() {
                stale += 1
            }
        }
    }
}

/// A request body handed to the HTTP client a chunk at a time: the client
/// asks for the next chunk when the connection can take it, so the bytes
/// handed out so far are the upload's progress.
struct ChunkedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    static let chunkSize = 32 * 1024
    let data: Data
    /// Set when the client first asks for a chunk (even of an empty body).
    let taken: Taken
    let sent: @Sendable (Int) -> Void

    final class Taken: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: ChunkedBody
        var offset = 0

        mutating func next() async -> ByteBuffer? {
            body.taken.set()
            let data = body.data
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + ChunkedBody.chunkSize, data.count)
            let chunk = ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + end)])
            offset = end
            body.sent(offset)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}

import ChatCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reads requests as PROTOCOL.md says: bodies within their limits, JSON
/// that must be valid UTF-8, integer query parameters.
struct RequestReader: Sendable {
    let config: ServerConfig

    func collect(_ request: Request, limit: Int) async throws -> Data {
        var buffer = ByteBuffer()
        for try await chunk in request.body {
            guard buffer.readableBytes + chunk.readableBytes <= limit else {
                throw APIFailure(.tooLarge, "body is larger than \(limit) bytes")
            }
            buffer.writeImmutableBuffer(chunk)
        }
        return Data(buffer.readableBytesView)
    }

    func decode<T: Decodable>(_ type: T.Type, _ request: Request, limit: Int? = nil) async throws -> T {
        try decode(try await collect(request, limit: limit ?? config.maxJSONBytes), as: T.self)
    }

    func decode<T: Decodable>(_ data: Data, as type: T.Type) throws -> T {
        guard !data.isEmpty else { throw APIFailure.invalid("a JSON body is required") }
        guard String(validating: data, as: UTF8.self) != nil else { throw APIFailure.invalid("body is not valid UTF-8") }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw APIFailure.invalid(APIFailure.describe(decoding: error))
        }
    }

    /// A send's body: up to 1 MiB for a secret message (contentType 300),
    /// the usual JSON limit for any other (413 either way past its limit).
    func decodeSend(_ request: Request) async throws -> SendMessageRequest {
        let data = try await collect(request, limit: SecretWire.maxBodyBytes)
        guard data.count > config.maxJSONBytes else { return try decode(data, as: SendMessageRequest.self) }
        guard let send = try? decode(data, as: SendMessageRequest.self), send.contentType == SecretWire.contentType else {
            throw APIFailure(.tooLarge, "body is larger than \(config.maxJSONBytes) bytes")
        }
        return send
    }

    func intParam(_ request: Request, _ name: String) throws -> Int? {
        guard let raw = request.uri.queryParameters.get(name) else { return nil }
        guard let v = Int(raw) else { throw APIFailure.invalid("\(name) must be an integer") }
        return v
    }

    /// The scheme and authority clients reached us on, for signed URLs.
    func baseURL(_ request: Request) -> String {
        if let host = request.head.authority,
           host.count <= 255, host.allSatisfy({ $0.isLetter || $0.isNumber || ".:-[]".contains($0) }), host.isASCII {
            return "http://\(host)"
        }
        return "http://\(config.host):\(config.port)"
    }
}

func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
    json(bytes: Array((try? JSONEncoder().encode(value)) ?? Data("{}".utf8)), status: status)
}

/// An already encoded JSON body.
func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}

extension String {
    var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}

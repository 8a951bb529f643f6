#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port held for a test: bound with SO_REUSEADDR but never
/// listening. A connection to it is refused, whatever else runs beside the
/// test, because the kernel hands a bound port to no other `bind(0)`. A
/// server started on it (Hummingbird binds with SO_REUSEADDR too) listens
/// there until stopped; after that the port is refused again instead of
/// being free for another test's server to take, which is what made
/// "the server is gone" tests pass or fail by luck.
public final class ReservedPort: Sendable {
    public let port: Int
    private let fd: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
            && withUnsafeMutablePointer(to: &addr) { ptr in
                ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
                }
            }
        guard ok else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "could not reserve a loopback port: \(reason)")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: addr.sin_port))
    }

    deinit { close(fd) }

    /// The port as a server URL no connection will get through to while
    /// nothing listens on it.
    public var url: String { "http://127.0.0.1:\(port)" }
}

import Hummingbird

/// Per-request state: the authenticated user, once the auth middleware ran.
public struct ChatRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var uid: Int = 0
    public var token: String = ""
    /// The connection's peer address (nil when there is none, in-process).
    public let peer: String?
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
    }
}

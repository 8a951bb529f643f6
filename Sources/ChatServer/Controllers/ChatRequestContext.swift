import Hummingbird

/// Per-request state: the authenticated user, once the auth middleware ran.
public struct ChatRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var uid: Int = 0
    public var token: String = ""
    public init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
}

/// What the status line shows about the link to the server.
public enum ConnectionState: Sendable, Equatable {
    case online
    case connecting
    /// With the reason in plain words.
    case offline(String)
}

import CBuildInfo

/// What `tongban --version` and `tongban-server --version` print.
public enum BuildInfo {
    /// The release this tree is (raised by hand when a release is cut).
    public static let version = "0.5.0"

    /// The commit the binary was built from, as the Makefile wrote it into
    /// `Sources/CBuildInfo/commit.h`; "unknown" for a plain `swift build`.
    public static var commit: String { String(cString: tongban_build_commit()) }

    /// `0.5.0 (commit 4496841)`.
    public static var versionLine: String { "\(version) (commit \(commit))" }
}

import Foundation

/// Finds files of the top-level `Resources/` folder at run time: in the
/// bundle SwiftPM copies next to the executable, or in the source tree. Unlike
/// `Bundle.module` it returns nil instead of stopping the process when the
/// bundle is missing.
public enum ResourceLocator {
    private static let bundleName = "tongban_ChatCore.resources"

    /// Next to the executable, where the build and `make install` put it:
    /// every start finds its files here, so the other places (which make
    /// Foundation read the main bundle's Info.plist) are looked at only on a miss.
    private static let besideExecutable: URL = {
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        return exe.deletingLastPathComponent().appendingPathComponent(bundleName).appendingPathComponent("Resources")
    }()

    private static let otherRoots: [URL] = {
        var roots: [URL] = []
        if let r = Bundle.main.resourceURL {
            roots.append(r.appendingPathComponent(bundleName).appendingPathComponent("Resources"))
        }
        for b in Bundle.allBundles {
            roots.append(b.bundleURL.deletingLastPathComponent().appendingPathComponent(bundleName).appendingPathComponent("Resources"))
        }
        // Source tree: Sources/ChatCore/Localization/ResourceLocator.swift -> ../../../Resources
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Resources")
        roots.append(source)
        return roots
    }()

    public static func url(for relativePath: String) -> URL? {
        let fm = FileManager.default
        let beside = besideExecutable.appendingPathComponent(relativePath)
        if fm.fileExists(atPath: beside.path) { return beside }
        for root in otherRoots {
            let candidate = root.appendingPathComponent(relativePath)
            if fm.fileExists(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

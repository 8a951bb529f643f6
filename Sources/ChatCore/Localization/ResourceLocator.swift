import Foundation

/// Finds files of the top-level `Resources/` folder at run time: in the
/// bundle SwiftPM copies next to the executable, or in the source tree. Unlike
/// `Bundle.module` it returns nil instead of stopping the process when the
/// bundle is missing.
public enum ResourceLocator {
    private static let roots: [URL] = {
        var roots: [URL] = []
        let bundleName = "tongban_ChatCore.resources"
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        roots.append(exe.deletingLastPathComponent().appendingPathComponent(bundleName).appendingPathComponent("Resources"))
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
        for root in roots {
            let candidate = root.appendingPathComponent(relativePath)
            if fm.fileExists(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

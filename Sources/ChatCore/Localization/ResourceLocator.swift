import Foundation

/// Finds files of the top-level `Resources/` folder at run time: in the
/// bundle SwiftPM copies next to the executable, where `make install` puts
/// them, or in the source tree. Unlike
/// `Bundle.module` it returns nil instead of stopping the process when the
/// bundle is missing.
public enum ResourceLocator {
    private static let bundleName = "tongban_ChatCore.resources"

    /// Where a build and an installed binary keep the files, looked at in
    /// this order before anything else: the bundle SwiftPM copies next to
    /// the executable (`Resources/Localization` → `<bundle>/Localization`),
    /// then `make install`'s `<prefix>/share/tongban` beside `<prefix>/bin`.
    /// Only a miss in both makes Foundation read the main bundle's
    /// Info.plist and list every bundle (`otherRoots`).
    private static let besideExecutable: [URL] = {
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let dir = exe.deletingLastPathComponent()
        return [dir.appendingPathComponent(bundleName),
                dir.deletingLastPathComponent().appendingPathComponent("share").appendingPathComponent("tongban")]
    }()

    private static let otherRoots: [URL] = {
        var roots: [URL] = []
        if let r = Bundle.main.resourceURL {
            roots.append(r.appendingPathComponent(bundleName))
        }
        for b in Bundle.allBundles {
            roots.append(b.bundleURL.deletingLastPathComponent().appendingPathComponent(bundleName))
        }
        // Source tree: Sources/ChatCore/Localization/ResourceLocator.swift -> ../../../Resources
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Resources")
        roots.append(source)
        return roots
    }()

    /// `relativePath` under `Resources/` (`Localization/en.json`).
    public static func url(for relativePath: String) -> URL? {
        func first(in roots: [URL]) -> URL? {
            roots.lazy.map { $0.appendingPathComponent(relativePath) }.first { FileManager.default.fileExists(atPath: $0.path) }
        }
        // `??` leaves `otherRoots` unread on a hit beside the executable.
        return first(in: besideExecutable) ?? first(in: otherRoots)
    }
}

import ChatTesting
import Foundation
import Testing
@testable import TongbanTUI

@Suite struct ExternalEditorTests {
    @Test func theCommandIsAnArgumentListFromVisualThenEditor() {
        #expect(ExternalEditor.command(environment: ["VISUAL": "code -w", "EDITOR": "nano"]) == ["code", "-w"])
        #expect(ExternalEditor.command(environment: ["VISUAL": "  ", "EDITOR": "nano"]) == ["nano"])
        #expect(ExternalEditor.command(environment: [:]) == ["vi"])
        #expect(ExternalEditor.command(environment: ["EDITOR": "vim; rm -rf ~"]) == ["vim;", "rm", "-rf", "~"],
                "words, never a shell: `vim;` is simply not found")
    }

    /// The draft goes to a 0600 file in a 0700 folder, the editor changes
    /// it (sed here, given the file as its last argument), the text comes
    /// back without the editor's final newline, and the folder is gone.
    @Test func aRoundThroughAnEditor() async throws {
        let base = TestFolders.make("editor-test")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let modes = ModesSeen()
        let edited = await ExternalEditor.compose("草稿第一行\n第二行", environment: ["EDITOR": "sed -i s/草稿/改好的稿/"], in: base) { body in
            await Task.detached {
                modes.look(in: base)
                return body()
            }.value
        }
        #expect(edited == "改好的稿第一行\n第二行")
        #expect(modes.file == 0o600 && modes.folder == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.path).isEmpty, "nothing is left behind")
        let failed = await ExternalEditor.compose("x", environment: ["EDITOR": "/nonexistent/editor"], in: base) { body in
            await Task.detached { body() }.value
        }
        #expect(failed == nil, "no editor: the draft stays as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.path).isEmpty)
    }
}

/// The compose folder's modes as the editor would find them.
final class ModesSeen: @unchecked Sendable {
    var file: Int?
    var folder: Int?

    func look(in base: URL) {
        guard let name = try? FileManager.default.contentsOfDirectory(atPath: base.path).first else { return }
        let dir = base.appendingPathComponent(name)
        folder = (try? FileManager.default.attributesOfItem(atPath: dir.path))?[.posixPermissions] as? Int
        file = (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("draft.txt").path))?[.posixPermissions] as? Int
    }
}

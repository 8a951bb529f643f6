import ChatCore
import ChatMedia
import ChatServer
import ChatStore
import ChatSync
import Foundation
import Logging
import TerminalUI
import Testing
@testable import TongbanTUI

@Suite struct KeyMapTests {
    @Test func rebindingAndErrors() throws {
        let dir = tmpDir("keys")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("keys.json")
        try Data(#"{"list.pin": "P", "quit": "Ctrl-Q", "messages.revoke": "x"}"#.utf8).write(to: file)
        let map = try KeyMap.load(from: file)
        #expect(map.action(for: .char("P"), in: .list) == .listPin)
        #expect(map.action(for: .char("p"), in: .list) == .listPin, "the default key still works")
        #expect(map.action(for: .ctrl("q"), in: .messages) == .quit)
        #expect(map.action(for: .ctrl("q"), in: .input) == .quit, "a control key quits while typing too")
        #expect(map.action(for: .char("q"), in: .input) == nil, "q is text while typing")
        #expect(map.action(for: .char("x"), in: .messages) == .messagesRevoke)
        #expect(map.action(for: .char("x"), in: .list) == nil, "per scope")
        #expect(try KeyMap.load(from: dir.appendingPathComponent("none.json")) == KeyMap())
        try Data(#"{"list.fly": "f"}"#.utf8).write(to: file)
        #expect(throws: KeyMap.Problem.self) { try KeyMap.load(from: file) }
        try Data("not json".utf8).write(to: file)
        #expect(throws: KeyMap.Problem.self) { try KeyMap.load(from: file) }
    }

    /// The status line's hints come from the key table: a key rebound in
    /// keys.json is the one they name.
    @Test func statusHintsFollowTheTable() throws {
        let zh = Localizer(language: .zhHans)
        #expect(Binding.hints(for: .list, KeyMap(), zh)
            == "j/k 移动  Enter 打开  p 置顶  d 删除  n 新建  s 信号  c 通讯录  / 搜索  ? 帮助  q 退出")
        #expect(Binding.hints(for: .input, KeyMap(), Localizer(language: .en))
            == "Enter send  Alt-Enter/Ctrl-J newline  Esc leave (draft kept)  /image /flash /multi /voice /file")
        let dir = tmpDir("hints")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("keys.json")
        try Data(#"{"list.pin": "P", "messages.revoke": "x"}"#.utf8).write(to: file)
        let map = try KeyMap.load(from: file)
        #expect(Binding.hints(for: .list, map, zh).contains("P 置顶"))
        #expect(Binding.hints(for: .messages, map, zh).contains("x 撤回"))
        #expect(!Binding.hints(for: .messages, map, zh).contains("R 撤回"))
    }
}

@Suite struct PathCompletionTests {
    @Test func completesFilesAndFolders() throws {
        let dir = tmpDir("paths")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for name in ["cat.png", "car.jpg", "photos/dog.webp"] {
            try Data([0]).write(to: dir.appendingPathComponent(name))
        }
        let p = dir.path
        #expect(PathCompletion.complete("/image \(p)/ph")?.text == "/image \(p)/photos/")
        #expect(PathCompletion.complete("/image \(p)/photos/d")?.text == "/image \(p)/photos/dog.webp ")
        let ambiguous = try #require(PathCompletion.complete("/image \(p)/ca"))
        #expect(ambiguous.text == "/image \(p)/ca")
        #expect(ambiguous.choices == ["car.jpg", "cat.png"])
        #expect(PathCompletion.complete("/multi \(p)/cat.png \(p)/car")?.text == "/multi \(p)/cat.png \(p)/car.jpg ")
        #expect(PathCompletion.complete("hello wor") == nil, "plain text is not completed")
    }
}

import Testing
@testable import TerminalUI

@Suite struct TextWrapTests {
    @Test func cjkBreaksAnywhere() {
        #expect(TextWrap.wrap("你好世界你好", width: 4) == ["你好", "世界", "你好"])
        #expect(TextWrap.wrap("你好世界", width: 5) == ["你好", "世界"])
        #expect(TextWrap.wrap("你好世界", width: 8) == ["你好世界"])
    }

    @Test func latinBreaksAtSpaces() {
        #expect(TextWrap.wrap("hello world foo", width: 11) == ["hello world", "foo"])
        #expect(TextWrap.wrap("hello world foo", width: 8) == ["hello", "world", "foo"])
        #expect(TextWrap.wrap("a    b", width: 3) == ["a", "b"])
        #expect(TextWrap.wrap("  indented text", width: 10) == ["  indented", "text"])
    }

    @Test func longLatinWordIsCut() {
        #expect(TextWrap.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(TextWrap.wrap("see https://example.com/a/very/long/path ok", width: 10)
            == ["see", "https://ex", "ample.com/", "a/very/lon", "g/path ok"])
    }

    @Test func mixedScripts() {
        #expect(TextWrap.wrap("hello你好world", width: 7) == ["hello你", "好world"])
        #expect(TextWrap.wrap("我们用 Swift 写代码", width: 8) == ["我们用", "Swift 写", "代码"])
    }

    @Test func closingPunctuationStaysWithItsCharacter() {
        #expect(TextWrap.wrap("你好世界。", width: 8) == ["你好世", "界。"])
        #expect(TextWrap.wrap("好（注释）", width: 4) == ["好", "（注", "释）"])
    }

    @Test func emojiClustersNeverSplit() {
        let text = "👨‍👩‍👧👍🏽🇨🇳❤️e\u{301}"
        let lines = TextWrap.wrap(text, width: 6)
        #expect(lines == ["👨‍👩‍👧", "👍🏽🇨🇳❤️é"])
        #expect(TextWrap.wrap("ab👨‍👩‍👧", width: 4) == ["ab", "👨‍👩‍👧"])  // wider than the line: own line
        #expect(TextWrap.wrap("你a", width: 1) == ["你", "a"])
    }

    @Test func newlines() {
        #expect(TextWrap.wrap("", width: 5) == [""])
        #expect(TextWrap.wrap("a\n\nb", width: 5) == ["a", "", "b"])
        #expect(TextWrap.wrap("a\r\nb\rc", width: 5) == ["a", "b", "c"])
        #expect(TextWrap.wrap("abc\n", width: 5) == ["abc", ""])
        #expect(TextWrap.wrap("abc ", width: 3) == ["abc"])
        #expect(TextWrap.wrap("x", width: 0) == ["x"])
    }

    /// Over many random strings: no line is wider than the width (except one
    /// grapheme that is wider on its own), and no grapheme is lost, split or
    /// reordered (only spaces at soft breaks and the newlines go away).
    @Test func widthBoundProperty() {
        let alphabet: [String] = [
            "a", "b", "c", "Hello", "x", " ", " ", " ", "你", "好", "世界", "，", "。", "（", "）", "😀", "👍🏽",
            "👨‍👩‍👧", "🇨🇳", "❤️", "e\u{301}", "\u{200B}", "\n", "-", ".", "Ａ", "🫨", "\t", "ｶ", "각", "漢字かな",
        ]
        var rng = SplitMix64(seed: 0x7041_6E62_616E)
        for _ in 0..<3000 {
            let count = Int(rng.next() % 40)
            var text = ""
            for _ in 0..<count {
                text += alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            let width = 1 + Int(rng.next() % 14)
            let lines = TextWrap.wrap(text, width: width)
            for line in lines {
                let w = DisplayWidth.of(line)
                let visible = line.filter { DisplayWidth.of($0) > 0 }
                #expect(w <= width || visible.count == 1, "\(text.debugDescription) width \(width): \(line.debugDescription)")
            }
            let kept = lines.flatMap { Array($0) }.filter { $0 != " " }
            let original = Array(text).filter { $0 != " " && !$0.isNewline }
            #expect(kept == original, "\(text.debugDescription) width \(width): \(lines)")
        }
    }

    @Test func truncate() {
        #expect(TextWrap.truncate("hello world", width: 8) == "hello w…")
        #expect(TextWrap.truncate("hello", width: 5) == "hello")
        #expect(TextWrap.truncate("你好世界", width: 5) == "你好…")
        #expect(TextWrap.truncate("你好世界", width: 6) == "你好…")
        #expect(TextWrap.truncate("你好世界", width: 1) == "…")
        #expect(TextWrap.truncate("你好", width: 0) == "")
        #expect(TextWrap.truncate("👨‍👩‍👧abc", width: 5) == "…")
        #expect(TextWrap.truncate("abcdef", width: 4, ellipsis: "...") == "a...")
        #expect(TextWrap.truncate("abcdef", width: 2, ellipsis: "...") == "ab")
        for width in 0..<12 {
            #expect(DisplayWidth.of(TextWrap.truncate("a你😀b👍🏽cd世界", width: width)) <= width)
        }
    }
}

/// A small deterministic generator so property tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

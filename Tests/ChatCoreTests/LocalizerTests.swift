import Testing
@testable import ChatCore

/// What a user sees in every line that names someone: the name as typed,
/// whatever braces it holds.
@Suite struct LocalizerTests {
    @Test func fillsEachPlaceholderOnce() {
        #expect(Localizer.fill("{a} and {b}, {a} again", ["a": "张三", "b": "Bob"]) == "张三 and Bob, 张三 again")
    }

    /// A nickname that looks like a placeholder is not filled in turn,
    /// whichever value would be put in first.
    @Test func aValueIsNeverSearchedForPlaceholders() {
        #expect(Localizer.fill("{a} and {b}", ["a": "{b}", "b": "{a}"]) == "{b} and {a}")
        #expect(Localizer.fill("{name} invited {count} people", ["name": "{count}", "count": "3"])
                == "{count} invited 3 people")
    }

    @Test func bracesWithoutAValueStayAsWritten() {
        #expect(Localizer.fill("{x} {{n}} {n", ["n": "5"]) == "{x} {5} {n")
        #expect(Localizer.fill("}{", ["n": "5"]) == "}{")
        #expect(Localizer.fill("", ["n": "5"]) == "")
    }

    @Test func tablesFillTheirPlaceholders() {
        let en = Localizer(language: .en)
        let key = "cli.unreachable"
        let line = en.string(key, ["server": "http://h", "reason": "{server}"])
        #expect(line.contains("http://h"))
        #expect(line.contains("{server}"))
        #expect(!line.contains("{reason}"))
    }
}

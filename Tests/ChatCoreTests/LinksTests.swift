import ChatCore
import Testing

@Suite struct LinksTests {
    func urls(_ text: String) -> [String] { Links.find(in: text).map(\.url) }

    @Test func linksInChineseAndEnglishText() {
        #expect(urls("看这个https://example.com/a?b=1&c=2很好") == ["https://example.com/a?b=1&c=2"])
        #expect(urls("见 https://a.b/c。然后") == ["https://a.b/c"])
        #expect(urls("see (https://en.wikipedia.org/wiki/Foo_(bar)) and http://x.y.") ==
            ["https://en.wikipedia.org/wiki/Foo_(bar)", "http://x.y"])
        #expect(urls("mail mailto:bob@example.com, or HTTPS://EXAMPLE.COM") == ["mailto:bob@example.com", "HTTPS://EXAMPLE.COM"])
        #expect(urls("nothttps://a.b https:// ftp://a.b") == [], "inside a word, a bare scheme, another scheme")
    }

    @Test func anAddressNeverCarriesAnEscapeOrAQuote() {
        let tricky = "https://a.b/\u{1B}]8;;evil\u{1B}\\x \"https://c.d/\"><script> https://e.f/\u{7}g"
        for link in Links.find(in: tricky) {
            #expect(link.url.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "<" })
        }
        #expect(urls(tricky) == ["https://a.b/", "https://c.d/", "https://e.f/"])
    }

    @Test func rangesPointIntoTheText() throws {
        let text = "你好 https://a.b/c 再见"
        let link = try #require(Links.find(in: text).first)
        #expect(String(text[link.range]) == "https://a.b/c")
    }
}

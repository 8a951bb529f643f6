@testable import ChatSync
import Testing

/// A search for a Chinese name or a room called "a&b" reaches the server as
/// typed: every byte outside RFC 3986's unreserved set is %-encoded.
@Suite struct QueryEncodingTests {
    @Test func unreservedStayEverythingElseIsEncoded() {
        #expect(APIClient.query("张三") == "%E5%BC%A0%E4%B8%89")
        #expect(APIClient.query("a b&c=d+e/f?g#h") == "a%20b%26c%3Dd%2Be%2Ff%3Fg%23h")
        #expect(APIClient.query("Az09-._~") == "Az09-._~")
        #expect(APIClient.query("é👍") == "%C3%A9%F0%9F%91%8D")
        #expect(APIClient.query("") == "")
    }
}

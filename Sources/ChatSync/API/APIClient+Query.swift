import Foundation

extension APIClient {
    /// A value for a query string (`?q=`, `?conversation_id=`): RFC 3986's
    /// unreserved characters stay, every other byte of the UTF-8 is
    /// %-encoded. Spelled out rather than `.alphanumerics` plus four: that
    /// set's Unicode tables are half a megabyte the client would map for it.
    static func query(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

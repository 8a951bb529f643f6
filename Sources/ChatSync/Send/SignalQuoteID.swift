import Crypto
import Foundation

/// The signal quote that opens a chat is sent once across my devices
/// (PROTOCOL.md v4): its clientMsgId comes from the reply it answers alone,
/// so a second device's send is the same message to the server.
public enum SignalQuoteID {
    /// The first 32 hex digits of the SHA-256 of the receiveId's UTF-8 bytes.
    public static func clientMsgID(receiveId: String) -> String {
        SHA256.hash(data: Data(receiveId.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}

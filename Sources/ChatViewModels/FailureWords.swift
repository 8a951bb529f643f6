import ChatCore
import ChatStore
import ChatSync

/// What a failed action tells the user, the same words in the list and in
/// a chat: a send's own failure, the server's refusal in the user's
/// language (`ServerWords`), a full disk, else the error itself.
/// `diskFull`: the words for a full disk, which depend on what was lost.
enum FailureWords {
    static func describe(_ error: any Error, _ localizer: Localizer, diskFull: String = "error.diskFull") -> String {
        if let f = error as? OutgoingFailure { return f.words(localizer) }
        if error is APIError { return ServerWords.describe(error, localizer) }
        if StoreError.isDiskFull(error) { return localizer.string(diskFull) }
        return "\(error)"
    }
}

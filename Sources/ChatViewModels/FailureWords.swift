import ChatCore
import ChatStore
import ChatSync

/// What a failed action tells the user, the same words in the list and in
/// a chat: a send's own failure, the server's refusal (a revoke too late
/// says the server's window), a full disk, else the error itself.
/// `diskFull`: the words for a full disk, which depend on what was lost.
enum FailureWords {
    static func describe(_ error: any Error, _ localizer: Localizer, diskFull: String = "error.diskFull") -> String {
        if let f = error as? OutgoingFailure { return f.words(localizer) }
        if let e = error as? APIError {
            if e.code == .revokeWindowPassed { return localizer.string("error.revokeWindow") }
            if e.code == .editWindowPassed { return localizer.string("error.editWindow") }
            return e.description
        }
        if StoreError.isDiskFull(error) { return localizer.string(diskFull) }
        return "\(error)"
    }
}

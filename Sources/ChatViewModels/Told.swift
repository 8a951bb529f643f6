import ChatCore
import ChatSync

/// An error as a fact: compared by what it says, worded by `Told.words`.
public struct Failure: Equatable, @unchecked Sendable {
    public let error: any Error
    public init(_ error: any Error) { self.error = error }
    public static func == (a: Failure, b: Failure) -> Bool { String(describing: a.error) == String(describing: b.error) }
}

/// What an effect of a chat or of the list found that the user is told:
/// facts, which the host's update words (`words`) for its status line.
public enum Told: Sendable, Equatable {
    /// Something failed; `diskFull` names the words for a full disk, which
    /// depend on what was lost.
    case failed(Failure, diskFull: String = "error.diskFull")
    /// `action` failed ("建群失败：{reason}").
    case failedTo(action: String, Failure)
    case forwarded(messages: Int, chats: Int)
    case forwardedMerged(chats: Int)
    case favorited
    case favoriteRemoved
    case deletedForMe
    /// Who a group's creation or an invitation left out, by name.
    case notAdded([String])

    /// Whether something failed (rather than worked).
    public var isFailure: Bool {
        switch self {
        case .failed, .failedTo: true
        default: false
        }
    }

    public func words(_ L: Localizer) -> String {
        switch self {
        case .failed(let f, let diskFull): FailureWords.describe(f.error, L, diskFull: diskFull)
        case .failedTo(let action, let f): ServerWords.failed(action, f.error, L)
        case .forwarded(let n, let chats): L.string("ui.forwarded", ["n": String(n), "chats": String(chats)])
        case .forwardedMerged(let chats): L.string("ui.forwardedMerged", ["chats": String(chats)])
        case .favorited: L.string("ui.favorited")
        case .favoriteRemoved: L.string("cli.fav.removed")
        case .deletedForMe: L.string("ui.deletedForMe")
        case .notAdded(let names): Session.notAddedWords(names, L)
        }
    }
}

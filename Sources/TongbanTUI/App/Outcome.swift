import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation

/// What an effect found that the user is told on the status line: facts
/// only. `Update.words` says them in the user's language, so every word on
/// the screen is decided in an update, never in the runner.
enum Outcome: Equatable {
    /// A call that failed: what was tried, and why.
    case failed(Attempt, Failure)
    /// Something failed that has no words of its own (the error's).
    case error(Failure)
    case noSuchUser
    /// A favourite's or search hit's chat is no longer in my list.
    case chatGone(name: String)
    /// A friend request sent (`accepted`: theirs to me was waiting, so we are friends now).
    case friendRequested(name: String, accepted: Bool)
    case friendAnswered(name: String, accepted: Bool)
    case friendRemoved(name: String)
    case deviceSignedOut(id: String)
    case passwordChanged
    case groupAvatarSet
    case avatarUnreadable(path: String)
    case noRecorder
    case recordingTooShort
    case noPlayer
    /// No program to show a file with (`name`: the one looked for).
    case noViewer(name: String?)
    /// `o` on a link, and no `xdg-open` (or `TONGBAN_URL_OPENER`) to run.
    case noLinkOpener(name: String)
    case pictureFailed(ImageCodec.Failure)
    case fileSaved(path: String)
    case fileSaveFailed(Failure)
    case roomRemoved(banned: Bool)
    case roomUnbanned
    case noEditor
    case editorFailed
    case noClipboard
    /// Copied with this program; nil: the program failed.
    case copied(how: String?)
    /// v4: a signal's action went through.
    case signalDone(SignalEffect)
    case groupDissolved

    /// What was tried, named by its words' key ("添加好友失败：{reason}").
    enum Attempt: String, Equatable {
        case loadPeople = "people.loadFailed", lookUp = "people.lookupFailed", request = "people.requestFailed"
        case answer = "people.answerFailed", removeFriend = "people.removeFailed", remark = "people.remarkFailed"
        case block = "people.blockFailed", unblock = "people.unblockFailed", profile = "people.profileFailed"
        case settings = "people.settingsFailed", signOut = "people.signOutFailed", password = "password.failed"
        case groupAvatar = "group.avatarFailed"
        case roomList = "ui.room.listFailed", roomCreate = "ui.room.createFailed", roomKeep = "ui.room.keepFailed"
        case roomFill = "ui.room.fillFailed", roomLeave = "ui.room.leaveFailed", roomUpdate = "ui.room.updateFailed"
        case roomKick = "ui.room.kickFailed", roomUnban = "ui.room.unbanFailed", roomBans = "ui.room.bansFailed"
        case roomDrop = "ui.room.dropFailed", roomEnter = "ui.room.enterFailed"
        case signalLoad = "ui.signals.loadFailed", signalPost = "ui.signals.postFailed", signalReply = "ui.signals.replyFailed"
        case signalHide = "ui.signals.hideFailed", signalReport = "ui.signals.reportFailed", signalDelete = "ui.signals.deleteFailed"
        case readers = "ui.readers.failed", dissolve = "group.dissolveFailed"
        case verify = "secret.verifyFailed", secretTimer = "secret.timerFailed"
    }
}

/// Why I am out of a room (RoomEvent.left).
enum LeftRoom: Equatable {
    /// I left it.
    case left
    /// I dropped it (owner).
    case dropped
    /// Entering it again after a reconnect was refused (removed, banned).
    case cannotReenter(name: String)
}

extension Update {
    /// The status line's words for an outcome.
    static func words(_ outcome: Outcome, _ L: Localizer) -> String {
        func name(_ n: String) -> [String: String] { ["name": TerminalSanitizer.oneLine(n)] }
        switch outcome {
        case .failed(let attempt, let failure): return ServerWords.failed(attempt.rawValue, failure.error, L)
        case .error(let failure): return ServerWords.describe(failure.error, L)
        case .noSuchUser: return L.string("people.noSuchUser")
        case .chatGone(let n): return L.string("ui.favorite.chatGone", ["name": n])
        case .friendRequested(let n, let accepted): return L.string(accepted ? "people.nowFriends" : "people.requested", name(n))
        case .friendAnswered(let n, let accepted): return L.string(accepted ? "people.nowFriends" : "people.declined", name(n))
        case .friendRemoved(let n): return L.string("people.removed", name(n))
        case .deviceSignedOut(let id): return L.string("people.signedOutDevice", ["id": TerminalSanitizer.oneLine(id)])
        case .passwordChanged: return L.string("password.changed")
        case .groupAvatarSet: return L.string("group.avatarSet")
        case .avatarUnreadable(let path): return L.string("people.avatarUnreadable", ["path": TerminalSanitizer.oneLine(path)])
        case .noRecorder: return L.string("ui.noRecorder")
        case .recordingTooShort: return L.string("ui.recordTooShort")
        case .noPlayer: return L.string("ui.noPlayer")
        case .noViewer(let n): return L.string("ui.noViewer", ["name": n ?? "xdg-open"])
        case .noLinkOpener(let n): return L.string("ui.noLinkOpener", ["name": n])
        case .pictureFailed(let f):
            switch f.kind {
            case .unreadable: return L.string("ui.picture.unreadable")
            case .timeout: return L.string("ui.picture.timeout")
            case .unavailable: return L.string("ui.picture.unavailable", ["reason": f.description])
            case .crashed: return L.string("ui.picture.crashed")
            }
        case .fileSaved(let path): return L.string("ui.fileSaved", ["path": TerminalSanitizer.oneLine(path)])
        case .fileSaveFailed(let f): return L.string("ui.fileSaveFailed", ["reason": "\(f.error)"])
        case .roomRemoved(let banned): return L.string(banned ? "ui.room.banned" : "ui.room.kicked")
        case .roomUnbanned: return L.string("ui.room.unbanned")
        case .noEditor: return L.string("ui.compose.none")
        case .editorFailed: return L.string("ui.compose.failed")
        case .noClipboard: return L.string("ui.copy.none")
        case .copied(let how): return how.map { L.string("ui.copied", ["how": $0]) } ?? L.string("ui.copy.failed")
        case .signalDone(let done):
            switch done {
            case .post: return L.string("ui.signals.posted")
            case .reply: return L.string("ui.signals.replied")
            case .hide: return L.string("ui.signals.hidden")
            case .report: return L.string("ui.signals.reported")
            case .delete: return L.string("ui.signals.deleted")
            case .load: return ""
            }
        case .groupDissolved: return L.string("group.dissolved")
        }
    }

    static func words(_ left: LeftRoom, _ L: Localizer) -> String {
        switch left {
        case .left: return L.string("ui.room.left")
        case .dropped: return L.string("ui.room.droppedByMe")
        case .cannotReenter(let name): return L.string("ui.room.cannotReenter", ["name": TerminalSanitizer.oneLine(name)])
        }
    }
}

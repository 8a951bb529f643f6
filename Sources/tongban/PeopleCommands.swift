import ArgumentParser
import ChatCore
import ChatMedia
import ChatStore
import ChatSync
import Foundation

/// Runs a people action; a refusal or a dead server reads in the user's
/// language under `failure` ("添加好友失败：…"), never as the server's English.
func peopleAction<T>(_ failure: String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let e as APIError {
        throw CLIError(ServerWords.failed(failure, e, L))
    }
}

/// The user with exactly this account, or "用户不存在".
func person(_ session: Session, _ account: String) async throws -> UserBasicInfo {
    guard let user = try await peopleAction("people.lookupFailed", { try await session.user(account: account) }) else {
        throw CLIError(L.string("people.noSuchUser"))
    }
    return user
}

/// `name (remark) @account: signature`, one line, cleaned.
func personLine(_ user: UserBasicInfo, remark: String = "") -> String {
    var line = TerminalSanitizer.oneLine(remark.isEmpty ? user.username : "\(remark) (\(user.username))")
    if let account = user.account { line += " @" + TerminalSanitizer.oneLine(account) }
    if let signature = user.signature, !signature.isEmpty { line += ": " + TerminalSanitizer.oneLine(signature) }
    return line
}

/// `tongban friend add|requests|accept|decline|rm|ls|remark` (PROTOCOL.md v3).
struct Friend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "friend",
        abstract: "Friends: ask, answer, list, remove, and name them for yourself.",
        subcommands: [Add.self, Requests.self, Accept.self, Decline.self, Remove.self, ListFriends.self, Remark.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Ask someone (by account) to be friends.")
        @OptionGroup var common: Common
        @Option(help: "A few words they see with the request (at most 100 characters).") var message: String?
        @Argument(help: "Their account.") var account: String

        func run() async throws {
            let session = try await common.session()
            let user = try await person(session, account)
            let request = try await peopleAction("people.requestFailed") { try await session.requestFriend(user, message: message) }
            let name = TerminalSanitizer.oneLine(user.username)
            out(request.status == .accepted ? L.string("people.nowFriends", ["name": name]) : L.string("people.requested", ["name": name]))
        }
    }

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "requests", abstract: "Pending friend requests, to you and from you.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let all = try await peopleAction("people.loadFailed") { try await session.pendingRequests() }
            if json { return try jsonOut(all) }
            if all.incoming.isEmpty && all.outgoing.isEmpty { out(L.string("people.noRequests")) }
            for r in all.incoming {
                let words = r.message.isEmpty ? "" : ": " + TerminalSanitizer.oneLine(r.message)
                out(L.string("people.incoming", ["who": personLine(r.from)]) + words)
            }
            for r in all.outgoing { out(L.string("people.outgoing", ["who": personLine(r.to)])) }
        }
    }

    /// Answers the pending request from `account`.
    static func answer(_ common: Common, _ account: String, accept: Bool) async throws {
        let session = try await common.session()
        let pending = try await peopleAction("people.loadFailed") { try await session.pendingRequests() }
        guard let request = pending.incoming.first(where: { $0.from.account == account.lowercased() }) else {
            throw CLIError(L.string("people.noRequestFrom", ["account": TerminalSanitizer.oneLine(account)]))
        }
        _ = try await peopleAction("people.answerFailed") { try await session.respondFriend(request.requestId, accept: accept) }
        let name = TerminalSanitizer.oneLine(request.from.username)
        out(accept ? L.string("people.nowFriends", ["name": name]) : L.string("people.declined", ["name": name]))
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "accept", abstract: "Accept someone's friend request.")
        @OptionGroup var common: Common
        @Argument(help: "Their account.") var account: String
        func run() async throws { try await Friend.answer(common, account, accept: true) }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "decline", abstract: "Decline someone's friend request.")
        @OptionGroup var common: Common
        @Argument(help: "Their account.") var account: String
        func run() async throws { try await Friend.answer(common, account, accept: false) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Stop being friends (on both sides).")
        @OptionGroup var common: Common
        @Argument(help: "Their account.") var account: String

        func run() async throws {
            let session = try await common.session()
            let user = try await person(session, account)
            try await peopleAction("people.removeFailed") { try await session.removeFriend(Contact(user: user)) }
            out(L.string("people.removed", ["name": TerminalSanitizer.oneLine(user.username)]))
        }
    }

    struct ListFriends: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "Your friends, by the name you see.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            _ = try await online(session) { try await session.refreshPeople() }
            let friends = ContactOrder.sorted(try session.reader.contacts())
            if json { return try jsonOut(friends) }
            if friends.isEmpty { out(L.string("people.noFriends")) }
            for c in friends { out(personLine(c.user, remark: c.remark)) }
        }
    }

    struct Remark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remark", abstract: "Your own name for a friend (\"\" clears it).")
        @OptionGroup var common: Common
        @Argument(help: "Their account.") var account: String
        @Argument(help: "The name only you see.") var name: String

        func run() async throws {
            let session = try await common.session()
            let user = try await person(session, account)
            let contact = try await peopleAction("people.remarkFailed") { try await session.setRemark(name, for: user.uid) }
            out(L.string("people.remarked", ["who": personLine(contact.user, remark: contact.remark)]))
        }
    }
}

struct Block: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: "Block someone: their messages to you and their requests are refused; a friendship ends.")
    @OptionGroup var common: Common
    @Argument(help: "Their account.") var account: String

    func run() async throws {
        let session = try await common.session()
        let user = try await person(session, account)
        try await peopleAction("people.blockFailed") { try await session.block(user.uid) }
        out(L.string("people.blocked", ["name": TerminalSanitizer.oneLine(user.username)]))
    }
}

struct Unblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Take someone off your block list.")
    @OptionGroup var common: Common
    @Argument(help: "Their account.") var account: String

    func run() async throws {
        let session = try await common.session()
        let user = try await person(session, account)
        try await peopleAction("people.unblockFailed") { try await session.unblock(user.uid) }
        out(L.string("people.unblocked", ["name": TerminalSanitizer.oneLine(user.username)]))
    }
}

struct Blocks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "blocks", abstract: "Whom you blocked, most recent first.")
    @OptionGroup var common: Common
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let session = try await common.session()
        let users = try await peopleAction("people.loadFailed") { try await session.blocked() }
        if json { return try jsonOut(users) }
        if users.isEmpty { out(L.string("people.noBlocks")) }
        for u in users { out(personLine(u)) }
    }
}

/// `tongban profile [ACCOUNT] [--name N] [--signature S] [--avatar PATH] [--json]`.
struct Profile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Show a profile (yours without ACCOUNT), or change yours: name, signature, picture.")
    @OptionGroup var common: Common
    @Option(help: "Your new display name (1-64 characters).") var name: String?
    @Option(help: "Your new signature (at most 100 characters; \"\" clears it).") var signature: String?
    @Option(help: "A picture file: made at most 256×256 JPEG, its metadata dropped, and uploaded as your picture.")
    var avatar: String?
    @Flag(help: "Print JSON.") var json = false
    @Argument(help: "Someone else's account.") var account: String?

    func validate() throws {
        if account != nil, name != nil || signature != nil || avatar != nil {
            throw ValidationError(L.string("people.profileOthers"))
        }
    }

    func run() async throws {
        let session = try await common.session()
        var info: UserBasicInfo
        if let account {
            info = try await person(session, account)
        } else if name != nil || signature != nil || avatar != nil {
            var request = UpdateProfileRequest(username: name, signature: signature)
            if let avatar { request.avatar = try await uploadAvatar(session, path: avatar) }
            info = try await peopleAction("people.profileFailed") { try await session.updateProfile(request) }
        } else {
            info = try await peopleAction("people.loadFailed") { try await session.myProfile() }
        }
        if json { return try jsonOut(info) }
        out(L.string("people.card.name", ["name": TerminalSanitizer.oneLine(info.username)]))
        out(L.string("people.card.account", ["account": TerminalSanitizer.oneLine(info.account ?? "")]))
        out(L.string("people.card.uid", ["uid": String(info.uid)]))
        out(L.string("people.card.signature", ["signature": TerminalSanitizer.oneLine(info.signature ?? "")]))
        out(L.string("people.card.avatar", ["avatar": info.avatar.isEmpty ? L.string("people.card.noAvatar")
                                                                          : TerminalSanitizer.oneLine(info.avatar)]))
    }

    /// The file made small and stripped (`AvatarImage`), uploaded; its objectKey.
    func uploadAvatar(_ session: Session, path: String) async throws -> String {
        let jpeg: Data
        do {
            jpeg = try AvatarImage.prepare(path: path)
        } catch {
            throw CLIError(L.string("people.avatarUnreadable", ["path": TerminalSanitizer.oneLine(path)]))
        }
        return try await peopleAction("people.profileFailed") {
            try await session.uploadAvatar(jpeg: jpeg)
        }
    }
}

/// `tongban privacy --strangers on|off`.
struct Privacy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy",
        abstract: "Who may message you, and whether others see you typing and reading (PROTOCOL.md v4).")
    @OptionGroup var common: Common
    @Option(help: "on: anyone may message you (the default); off: friends only.") var strangers: Switch?
    @Option(help: "on: others see when you type (the default); off: nobody does.") var typing: Switch?
    @Option(help: "on: one-to-one chats show read receipts both ways (the default); off: neither way.") var reads: Switch?

    enum Switch: String, ExpressibleByArgument { case on, off }

    func run() async throws {
        let session = try await common.session()
        let settings: UserSettings
        let change = SettingsChange(acceptStrangers: strangers.map { $0 == .on }, shareTyping: typing.map { $0 == .on },
                                    shareRead: reads.map { $0 == .on })
        if !change.isEmpty {
            settings = try await peopleAction("people.settingsFailed") { try await session.setSettings(change) }
        } else {
            settings = try await peopleAction("people.loadFailed") { try await session.settings() }
        }
        out(L.string(settings.acceptStrangers ? "people.strangersOn" : "people.strangersOff"))
        out(L.string(settings.shareTyping ? "people.typingOn" : "people.typingOff"))
        out(L.string(settings.shareRead ? "people.readsOn" : "people.readsOff"))
    }
}

/// `tongban sessions [--json]`, `tongban sessions revoke ID`.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "Your signed-in devices; `revoke ID` signs one out at once.",
        subcommands: [ListSessions.self, Revoke.self], defaultSubcommand: ListSessions.self)

    struct ListSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "Your signed-in devices, most recently seen first.")
        @OptionGroup var common: Common
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let devices = try await peopleAction("people.loadFailed") { try await session.devices() }
            if json { return try jsonOut(devices) }
            for d in devices {
                let mark = d.current ? " " + L.string("people.thisDevice") : ""
                out("\(TerminalSanitizer.oneLine(d.sessionId))  \(TimeLabel.text(d.lastSeenAt, L))  \(TerminalSanitizer.oneLine(d.userAgent))\(mark)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Sign a device out: its login stops working at once.")
        @OptionGroup var common: Common
        @Argument(help: "The device's id, from `tongban sessions`.") var id: String

        func run() async throws {
            let session = try await common.session()
            try await peopleAction("people.signOutFailed") { try await session.signOut(device: id) }
            out(L.string("people.signedOutDevice", ["id": TerminalSanitizer.oneLine(id)]))
        }
    }
}

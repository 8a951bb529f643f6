import ArgumentParser
import ChatCore
import ChatMedia
import ChatSync
import Foundation

/// `tongban group ...`: groups from the command line (PROTOCOL.md "Groups").
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Create, join and manage group chats.",
        subcommands: [Create.self, Join.self, Invite.self, Leave.self, Kick.self, Members.self, Update.self, Dissolve.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a group; you become its owner.")
        @OptionGroup var common: Common
        @Option(help: "Unique name others join by: 3-32 of a-z, 0-9 and _.") var unique: String
        @Option(help: "A member to add (account, display name or uid); repeat for more.") var member: [String] = []
        @Option(help: "The group notice.") var notice: String?
        @Argument(help: "The group's name, 1-64 characters.") var name: String

        func run() async throws {
            let session = try await common.session()
            let info = try await server(session, failure: "error.createGroup") {
                var uids: [Int] = []
                for m in member { uids.append(try await session.user(named: m).uid) }
                // The full-screen client's action: a group you are already in is opened, not refused.
                return try await session.createGroup(CreateGroupRequest(name: name, uniqueName: unique, memberIds: uids,
                                                                         notice: notice))
            }
            out(L.string("cli.group.created", ["name": info.name, "unique": info.uniqueName, "count": String(info.memberCount)]))
            // Who was left out, never why (PROTOCOL.md v4): they may still join by the unique name.
            if let notice = await session.notAddedNotice(info, localizer: L) { out(notice) }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "join", abstract: "Join a group by its unique name.")
        @OptionGroup var common: Common
        @Argument(help: "The group's unique name.") var unique: String

        func run() async throws {
            let session = try await common.session()
            let summary = try await server(session, failure: "error.joinGroup") { try await session.joinGroup(uniqueName: unique) }
            out(L.string("cli.group.joined", ["name": summary.showName, "count": String(summary.memberCount ?? 0)]))
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "invite", abstract: "Add people to a group you are in.")
        @OptionGroup var common: Common
        @Option(help: "The group: its name, unique name or sg_ id.") var group: String
        @Argument(help: "The people to add: accounts, display names or uids.") var users: [String]

        func run() async throws {
            let session = try await common.session()
            let gid = try await groupId(session, group)
            let info = try await server(session) {
                var uids: [Int] = []
                for u in users { uids.append(try await session.user(named: u).uid) }
                return try await session.invite(uids, to: gid)
            }
            out(L.string("cli.group.invited", ["name": info.name, "count": String(info.memberCount)]))
            if let notice = await session.notAddedNotice(info, localizer: L) { out(notice) }
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave a group (its history stays on this machine).")
        @OptionGroup var common: Common
        @Option(help: "The group: its name, unique name or sg_ id.") var group: String

        func run() async throws {
            let session = try await common.session()
            let gid = try await groupId(session, group)
            try await server(session) { try await session.leaveGroup(gid) }
            out(L.string("cli.group.left"))
        }
    }

    struct Dissolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dissolve",
            abstract: "End a group you own: everyone is out, its unique name is free again.")
        @OptionGroup var common: Common
        @Option(help: "The group: its name, unique name or sg_ id.") var group: String

        func run() async throws {
            let session = try await common.session()
            let gid = try await groupId(session, group)
            try await server(session, failure: "cli.group.dissolveFailed") { try await session.dissolveGroup(gid) }
            out(L.string("cli.group.dissolved"))
        }
    }

    struct Kick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "kick", abstract: "Remove a member (owner only).")
        @OptionGroup var common: Common
        @Option(help: "The group: its name, unique name or sg_ id.") var group: String
        @Argument(help: "The member: account, display name or uid.") var user: String

        func run() async throws {
            let session = try await common.session()
            let gid = try await groupId(session, group)
            try await server(session) { try await session.kick(try await session.user(named: user).uid, from: gid) }
            out(L.string("cli.group.kicked"))
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Rename a group, change its notice or picture, open or close it (owner only).")
        @OptionGroup var common: Common
        @Option(help: "The group: its name, unique name or sg_ id.") var group: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "A new notice.") var notice: String?
        @Option(help: "Whether others may join by the unique name: true or false.") var joinable: Bool?
        @Option(help: "A picture file for the group: made at most 256×256 JPEG, its metadata dropped.") var avatar: String?

        func run() async throws {
            let session = try await common.session()
            let gid = try await groupId(session, group)
            var jpeg: Data?
            if let avatar {
                do { jpeg = try AvatarImage.prepare(path: avatar) } catch {
                    throw CLIError(L.string("people.avatarUnreadable", ["path": TerminalSanitizer.oneLine(avatar)]))
                }
            }
            let info = try await server(session) {
                var key: String?
                if let jpeg { key = try await session.uploadAvatar(jpeg: jpeg) }
                return try await session.updateGroup(UpdateGroupRequest(groupId: gid, name: name, notice: notice, joinable: joinable,
                                                                        avatar: key))
            }
            out(L.string("cli.group.updated", ["name": info.name]))
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "members", abstract: "List a group's members (from the cache when offline).")
        @OptionGroup var common: Common
        @Option(help: "The group: its name, unique name or sg_ id.") var group: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let session = try await common.session()
            let gid = try await groupId(session, group)
            let members: [GroupMember]
            do { members = try await session.members(groupId: gid) } catch let e as APIError { throw CLIError(ServerWords.describe(e, L)) }
            if json { return try jsonOut(members) }
            for m in members {
                let role = m.isOwner ? "  " + L.string("cli.group.owner") : ""
                out("\(m.username)  @\(m.account ?? String(m.uid))\(role)")
            }
        }
    }
}

/// The gid of a group named by `sg_` id, unique name or name (cached groups
/// first, then a lookup of a joinable group by unique name).
func groupId(_ session: Session, _ name: String) async throws -> Int {
    if let gid = ConversationIDHelper.groupId(name) { return gid }
    if let known = try session.reader.group(named: name) { return known.groupId }
    _ = try await syncNow(session)
    if let known = try session.reader.group(named: name) { return known.groupId }
    throw CLIError(L.string("cli.group.unknown", ["name": name]))
}

/// Runs server calls whose refusal is the command's answer (a clear error,
/// exit 1), in the user's words: after `failure`'s ("创建群组失败：…") when given.
@discardableResult
func server<T>(_ session: Session, failure: String? = nil, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let e as APIError {
        throw CLIError(failure.map { ServerWords.failed($0, e, L) } ?? ServerWords.describe(e, L))
    }
}

struct Mute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mute", abstract: "Mute a conversation: no bell or notification, except when you are mentioned.")
    @OptionGroup var common: Common
    @Option(help: "The peer or group: account, display name, uid, group name or unique name.") var with: String
    func run() async throws { try await setMuted(common, with, true) }
}

struct Unmute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unmute", abstract: "Unmute a conversation.")
    @OptionGroup var common: Common
    @Option(help: "The peer or group: account, display name, uid, group name or unique name.") var with: String
    func run() async throws { try await setMuted(common, with, false) }
}

func setMuted(_ common: Common, _ with: String, _ muted: Bool) async throws {
    let session = try await common.session()
    let conv = try await conversationId(session, with: with)
    try await server(session) { try await session.mute(conv, muted) }
    out(L.string(muted ? "cli.muted" : "cli.unmuted"))
}

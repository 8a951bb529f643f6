import ArgumentParser
import ChatCore
import ChatCrypto
import ChatSync
import Foundation

/// `tongban secret …` (PROTOCOL.md v4 "Secret chats").
struct SecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret", abstract: "Secret chats: end-to-end encrypted one-to-one chats.",
        subcommands: [SecretStart.self, SecretVerify.self, SecretTimer.self])
}

/// The secret chat with `peer`, started on the server when new.
func secretConversation(_ session: Session, with peer: String) async throws -> String {
    let user = try await session.user(named: peer)
    let id = ConversationIDHelper.secret(myUid: session.credentials.uid, targetUid: user.uid)
    if try session.reader.conversation(id: id, localizer: L) != nil { return id }
    return try await online(session) { try await session.startSecretChat(with: user) } ?? id
}

struct SecretStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start (or find) the secret chat with someone.")
    @OptionGroup var common: Common
    @Argument(help: "The peer (account, display name or uid).") var peer: String

    func run() async throws {
        let session = try await common.session()
        let user = try await session.user(named: peer)
        let id = try await online(session) { try await session.startSecretChat(with: user) } ?? ""
        out(L.string("cli.secret.started", ["name": TerminalSanitizer.oneLine(user.username), "id": id]))
    }
}

/// The safety number with `peer`, as both sides see it (12 groups of 5 digits).
func safetyNumber(_ session: Session, _ peer: String) async throws -> (UserBasicInfo, String) {
    let user = try await session.user(named: peer)
    guard let number = try await online(session, { try await session.safetyNumber(with: user.uid) }) ?? nil else {
        throw CLIError(L.string("cli.secret.noKeys", ["name": TerminalSanitizer.oneLine(user.username)]))
    }
    return (user, number)
}

struct SafetyNumberCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "safety-number",
        abstract: "The safety number (安全码) with someone: compare it with theirs in person; equal means nobody is in between.")
    @OptionGroup var common: Common
    @Argument(help: "The peer (account, display name or uid).") var peer: String

    func run() async throws {
        let session = try await common.session()
        let (user, number) = try await safetyNumber(session, peer)
        out(SafetyNumber.grouped(number))
        let verified = try session.isVerified(number, with: user.uid)
        out(L.string(verified ? "cli.secret.verified" : "cli.secret.notVerified", ["name": TerminalSanitizer.oneLine(user.username)]))
    }
}

struct SecretVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Mark the safety number with someone as verified (after comparing it with theirs).")
    @OptionGroup var common: Common
    @Argument(help: "The peer (account, display name or uid).") var peer: String

    func run() async throws {
        let session = try await common.session()
        let (user, number) = try await safetyNumber(session, peer)
        try session.markVerified(number, with: user.uid)
        out(SafetyNumber.grouped(number))
        out(L.string("cli.secret.verified", ["name": TerminalSanitizer.oneLine(user.username)]))
    }
}

struct SecretTimer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timer", abstract: "Set a secret chat's disappearing-message timer: off, 30s, 5m, 1h or 1d.")
    @OptionGroup var common: Common
    @Argument(help: "The peer (account, display name or uid).") var peer: String
    @Argument(help: "off, 30s, 5m, 1h or 1d.") var timer: String

    static let choices = ["off": 0, "30s": 30, "5m": 300, "1h": 3600, "1d": 86400]

    func run() async throws {
        guard let seconds = Self.choices[timer] else { throw ValidationError("the timer must be off, 30s, 5m, 1h or 1d") }
        let session = try await common.session()
        let conv = try await secretConversation(session, with: peer)
        _ = try await online(session) { try await session.setSecretTimer(seconds, in: conv) }
        out(L.string("cli.secret.timer", ["timer": SecretNoticePayload.timerWords(seconds, L)]))
    }
}

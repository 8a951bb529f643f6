import ChatCore
import ChatViewModels
import Foundation
import TerminalUI

/// Group chats in the input bar: `@` completion and the slash commands
/// that change a group.
extension Update {
    /// The word being typed when it starts with `@` in a group I am in, or a room:
    /// what follows the `@`.
    static func mentionQuery(_ s: AppState) -> String? {
        guard let chat = s.chat, chat.conversation.isGroup && chat.conversation.isMember || chat.conversation.isRoom else { return nil }
        let before = s.input.beforeCursor
        guard let at = before.lastIndex(of: "@") else { return nil }
        let word = before[before.index(after: at)...]
        // An `@` inside a word (an e-mail address) starts nothing.
        if at > before.startIndex, let prev = before[..<at].last, !prev.isWhitespace { return nil }
        guard !word.contains(where: \.isWhitespace), word.count <= 32 else { return nil }
        return String(word)
    }

    /// Who `@query` may name: members by display name or account prefix
    /// (me left out), and "all" for the owner.
    static func mentionCandidates(_ s: AppState) -> [MentionCandidate] {
        guard let q = mentionQuery(s), let chat = s.chat else { return [] }
        let p = q.lowercased()
        var out: [MentionCandidate] = []
        if chat.group?.ownerId == chat.me, "all".hasPrefix(p) || p.isEmpty { out.append(.all) }
        for m in chat.members where ConversationIDHelper.imUid(m.uid) != chat.me {
            if p.isEmpty || m.username.lowercased().hasPrefix(p) || (m.account?.lowercased().hasPrefix(p) ?? false) {
                out.append(.member(m))
            }
            if out.count >= 8 { break }
        }
        return out
    }

    enum MentionCandidate: Equatable {
        case all
        case member(GroupMember)
    }

    /// Tab (or Enter) while `@` candidates show: the first one replaces the
    /// word and is remembered as a mention. nil: the key is not for completion.
    static func mentionKey(_ key: Key, _ s: inout AppState) -> [Effect]? {
        guard key == .tab, let q = mentionQuery(s), let first = mentionCandidates(s).first else { return nil }
        let name: String
        switch first {
        case .all:
            name = s.allMentionLabel
            s.mentionsAll = true
        case .member(let m):
            name = TerminalSanitizer.oneLine(m.username)
            let id = ConversationIDHelper.imUid(m.uid)
            if !s.mentions.contains(id) { s.mentions.append(id) }
        }
        for _ in 0..<q.count { s.input.apply(.backspace) }
        s.input.insert(name + " ")
        return []
    }

    /// `/invite A B`, `/kick A`, `/rename NAME`, `/notice TEXT`,
    /// `/joinable on|off`, `/leave` in a group chat. nil: not a group
    /// command; `.some(nil)`: one with a usage error (on the status line).
    static func groupCommand(_ text: String, _ s: inout AppState) -> Effect.GroupChange?? {
        guard s.chat?.conversation.isGroup == true, text.hasPrefix("/") else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        func usage(_ u: String) -> Effect.GroupChange?? { s.status = u; return .some(nil) }
        switch parts[0] {
        case "/invite":
            let names = rest.split(separator: " ").map(String.init)
            return names.isEmpty ? usage("/invite ACCOUNT…") : .invite(names)
        case "/kick": return rest.isEmpty ? usage("/kick ACCOUNT") : .kick(rest)
        case "/rename": return GroupRules.isValidName(rest) ? .rename(rest) : usage("/rename NAME")
        case "/notice": return .notice(rest)
        case "/joinable":
            if rest == "on" { return .joinable(true) }
            if rest == "off" { return .joinable(false) }
            return usage("/joinable on|off")
        case "/leave": return .leave
        case "/avatar": return rest.isEmpty ? usage("/avatar PATH") : .avatar(path: rest)
        default: return nil
        }
    }
}

/// The new-group form and a chat's settings: the group's menus.
extension Update {
}

/// `,` in a chat: `c` (or Enter) clears the history; in a group I am in,
/// `l` leaves and `i` starts an invitation in the input bar; the owner also
/// has `r` rename, `n` notice (both start in the input bar with the current
/// text), `j` open or close joining by unique name, and ↑/↓ to pick a
/// member that `x` removes. Any other key closes.
struct SettingsPage: Equatable {
    /// The member selected (the one `x` removes).
    var member = 0

    mutating func update(_ key: Key, _ chat: ChatState) -> Step {
        let c = chat.conversation
        let isOwner = chat.group != nil && chat.group?.ownerId == chat.me
        switch key {
        case .char("c"), .enter: return Step(next: .confirm(.clearHistory))
        case .char("l") where c.isGroup && c.isMember: return Step(next: .confirm(.leaveGroup(id: c.id, name: c.nickname)))
        case .char("i") where c.isGroup && c.isMember: return Step(next: .type("/invite "))
        case .char("r") where isOwner && c.isMember:
            return Step(next: .type("/rename " + TerminalSanitizer.oneLine(chat.group?.name ?? c.nickname)))
        case .char("n") where isOwner && c.isMember:
            return Step(next: .type("/notice " + TerminalSanitizer.sanitize(chat.group?.notice ?? "", keepNewlines: true)))
        case .char("j") where isOwner && c.isMember: return .close([.group(.joinable(!(chat.group?.joinable ?? true)))])
        case .char("D") where isOwner && c.isMember: return Step(next: .confirm(.dissolveGroup(name: c.nickname)))
        case .down where c.isGroup: member = min(member + 1, max(0, chat.members.count - 1))
        case .up where c.isGroup: member = max(0, member - 1)
        case .char("x") where isOwner && c.isMember && member < chat.members.count:
            let m = chat.members[member]
            guard ConversationIDHelper.imUid(m.uid) != chat.me else { return .stay }
            return Step(next: .confirm(.kick(uid: m.uid, name: TerminalSanitizer.oneLine(m.username))))
        default: return .close()
        }
        return .stay
    }
}

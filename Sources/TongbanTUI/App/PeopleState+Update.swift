import ChatCore
import ChatSync
import Foundation
import TerminalUI

/// People (PROTOCOL.md v3): friends, requests and blocks, and their pages
/// (the contacts view, adding a friend, my page, a peer's page), each a
/// value with its own update. What their effects found comes back as
/// `PeopleEvent`s (`EffectRunner+People.swift`).
extension PeopleState {
    /// Friends and requests as the store has them, and whom I blocked (nil: unchanged).
    mutating func loaded(contacts: [Contact], requests: [FriendRequest], blocked: [UserBasicInfo]?) {
        self.contacts = contacts
        self.requests = requests
        if let blocked { self.blocked = blocked }
    }
}

extension ContactsView {
    /// `c` in the list: the view, its selection on the first row that can be acted on.
    static func opened(_ people: PeopleState, groups: [Conversation], _ L: Localizer) -> ContactsView {
        var view = ContactsView()
        view.index = settle(0, in: rows(people, groups: groups, query: "", L))
        return view
    }

    /// The rows changed under the view (the store, the server): the
    /// selection follows the first row until the user moved it.
    mutating func reloaded(_ people: PeopleState, groups: [Conversation], _ L: Localizer) {
        let rows = Self.rows(people, groups: groups, query: query, L)
        index = Self.settle(moved ? min(index, max(0, rows.count - 1)) : 0, in: rows)
    }

    /// ↑↓ move, Enter acts on the row (accepts a request, opens a friend's
    /// or group's chat, unblocks), `x` (or Delete) declines a request;
    /// other letters filter, Backspace unfilters, Esc closes.
    mutating func update(_ key: Key, _ people: PeopleState, groups: [Conversation], _ L: Localizer) -> Step {
        let rows = Self.rows(people, groups: groups, query: query, L)
        let row = index < rows.count ? rows[index] : nil
        let request: FriendRequest? = if case .request(let r)? = row { r } else { nil }
        func refilter() { index = Self.settle(0, in: Self.rows(people, groups: groups, query: query, L)) }
        switch key {
        case .escape: return .close()
        case .down:
            index = Self.step(index, by: 1, in: rows)
            moved = true
        case .up:
            index = Self.step(index, by: -1, in: rows)
            moved = true
        case .enter:
            switch row {
            case .request(let r)?: return .effects([.people(.respond(requestId: r.requestId, accept: true))])
            case .friend(let c)?: return .close([.startConversation(c.user)])
            case .group(let c)?: return Step(next: .open(c))
            case .room(let r)?: return .close([.room(.enter(unique: r.uniqueName, again: false))])
            case .blocked(let u)?: return .effects([.people(.unblock(uid: u.uid))])
            default: return .stay
            }
        case .delete:
            guard let request else { return .stay }
            return .effects([.people(.respond(requestId: request.requestId, accept: false))])
        case .char("x") where query.isEmpty && request != nil:
            return .effects([.people(.respond(requestId: request?.requestId ?? 0, accept: false))])
        case .backspace:
            guard !query.isEmpty else { return .stay }
            query.removeLast()
            refilter()
        case .char(let c):
            query.append(c)
            refilter()
        case .paste(let text):
            query += TerminalSanitizer.oneLine(text)
            refilter()
        default: break
        }
        return .stay
    }
}

extension AddFriendForm {
    /// Type and Enter searches; ↑↓ pick, Enter shows the card; on the card
    /// type the words to send, Enter sends, Esc goes back.
    mutating func update(_ key: Key) -> Step {
        if let person = card {
            switch key {
            case .escape: card = nil
            case .enter: return .close([.people(.request(person, message: message))])
            case .backspace: if !message.isEmpty { message.removeLast() }
            case .char(let c): message.append(c)
            case .paste(let text): message += TerminalSanitizer.oneLine(text)
            default: break
            }
            return .stay
        }
        switch key {
        case .escape: return .close()
        case .down: index = min(index + 1, max(0, (found?.count ?? 1) - 1))
        case .up: index = max(0, index - 1)
        case .enter:
            if let found, !found.isEmpty, index < found.count {
                card = found[index]
                return Step(pictures: [found[index].avatar])
            }
            let q = query.trimmingCharacters(in: .whitespaces)
            return q.isEmpty ? .stay : .effects([.people(.search(q))])
        case .backspace:
            guard !query.isEmpty else { return .stay }
            query.removeLast()
            found = nil
        case .char(let c):
            query.append(c)
            found = nil
        case .paste(let text):
            query += TerminalSanitizer.oneLine(text)
            found = nil
        default: break
        }
        return .stay
    }

    /// What the search for `query` found, if it is still what is asked.
    mutating func found(_ users: [UserBasicInfo], for query: String) -> Bool {
        guard self.query.trimmingCharacters(in: .whitespaces) == query, card == nil else { return false }
        found = users
        index = 0
        return true
    }
}

extension MyPage {
    /// My page's parts as the server has them (nil: not read).
    mutating func loaded(_ profile: UserBasicInfo?, _ settings: UserSettings?, _ devices: [SessionInfo]?) -> Step {
        if let profile { self.profile = profile }
        if let settings { self.settings = settings }
        if let devices { self.devices = devices }
        index = min(index, rows.count - 1)
        return Step(pictures: [profile?.avatar ?? ""])
    }

    /// ↑↓ move; Enter edits a field in place (Enter saves, Esc drops),
    /// flips the strangers switch, asks to log out; `x` on a device asks to
    /// sign it out; `p` (or Enter on its row) changes the password; `y`
    /// answers a question, anything else says no.
    mutating func update(_ key: Key, _ L: Localizer) -> Step {
        if password != nil { return passwordKey(key, L) }
        if let question = asking {
            asking = nil
            guard key == .char("y") || key == .char("Y") else { return .stay }
            switch question {
            case .signOutDevice(let d):
                devices.removeAll { $0.sessionId == d.sessionId }
                index = min(index, rows.count - 1)
                return .effects([.people(.signOutDevice(d.sessionId))])
            case .logout:
                return .effects([.people(.logout)])
            }
        }
        if let field = editing {
            switch key {
            case .escape: editing = nil
            case .enter:
                editing = nil
                switch field {
                case .name: return text.trimmingCharacters(in: .whitespaces).isEmpty ? .stay
                    : .effects([.people(.updateProfile(name: text, signature: nil))])
                case .signature: return .effects([.people(.updateProfile(name: nil, signature: text))])
                case .avatar:
                    let path = text.trimmingCharacters(in: .whitespaces)
                    return path.isEmpty ? .stay : .effects([.people(.setAvatar(path: path))])
                }
            case .backspace: if !text.isEmpty { text.removeLast() }
            case .char(let c): text.append(c)
            case .paste(let pasted): text += TerminalSanitizer.oneLine(pasted)
            default: break
            }
            return .stay
        }
        let row = rows[min(index, rows.count - 1)]
        switch key {
        case .escape, .char("q"): return .close()
        case .down, .char("j"): index = min(index + 1, rows.count - 1)
        case .up, .char("k"): index = max(0, index - 1)
        case .enter, .char(" "):
            switch row {
            case .field(let f):
                editing = f
                switch f {
                case .name: text = profile?.username ?? ""
                case .signature: text = profile?.signature ?? ""
                case .avatar: text = "~/"
                }
            case .setting(let which):
                guard var now = settings else { return .stay }
                let change: SettingsChange
                switch which {
                case .strangers: change = SettingsChange(acceptStrangers: !now.acceptStrangers)
                case .typing: change = SettingsChange(shareTyping: !now.shareTyping)
                case .reads: change = SettingsChange(shareRead: !now.shareRead)
                }
                now = now.applying(change)
                settings = now
                return .effects([.people(.settings(change))])
            case .device(let d) where !d.current: asking = .signOutDevice(d)
            case .device: break
            case .password: password = PasswordForm()
            case .logout: asking = .logout
            }
        case .char("x"):
            if case .device(let d) = row, !d.current { asking = .signOutDevice(d) }
        case .char("p"): password = PasswordForm()
        default: break
        }
        return .stay
    }

    /// Changing the password: what is typed shows as stars; Enter goes on
    /// to the next question. A new password of the wrong length, or one not
    /// typed the same twice, is asked for again before anything is sent;
    /// Esc drops the lot.
    private mutating func passwordKey(_ key: Key, _ L: Localizer) -> Step {
        guard var form = password else { return .stay }
        var step = Step.stay
        switch key {
        case .escape: password = nil; return .stay
        case .backspace: if !form.typed.isEmpty { form.typed.removeLast() }
        case .char(let c): form.typed.append(c)
        // A pasted password keeps its spaces; only control characters (a trailing newline) go.
        case .paste(let text): form.typed += String(text.unicodeScalars.filter { $0.properties.generalCategory != .control })
        case .enter where !form.typed.isEmpty:
            if form.step == .again && form.again == form.new {
                password = nil
                return .effects([.people(.changePassword(current: form.current, new: form.new))])
            }
            step.status = form.advance(L)
        default: return .stay
        }
        password = form
        return step
    }
}

extension PasswordForm {
    /// Enter on a question that does not send the form: the next question,
    /// or the new password asked again; returns why, if it is asked again.
    mutating func advance(_ L: Localizer) -> String? {
        switch step {
        case .current:
            step = .new
        case .new:
            guard let problem = AccountRules.problem(password: new) else {
                step = .again
                return nil
            }
            new = ""
            return problem.text(L)
        case .again:
            (new, again, step) = ("", "", .new)
            return L.string("password.mismatch")
        }
        return nil
    }
}

extension PeerPage {
    /// `a` asks to be friends, `d` stops being friends (y/N), `m` types a
    /// remark (Enter saves), `b` blocks (y/N) or unblocks, `c` clears the
    /// history, `k` shares their card; Esc closes.
    mutating func update(_ key: Key, _ people: PeopleState) -> Step {
        let uid = user.uid
        if let question = asking {
            asking = nil
            guard key == .char("y") || key == .char("Y") else { return .stay }
            switch question {
            case .removeFriend:
                guard let c = people.contact(uid) else { return .stay }
                return .effects([.people(.remove(c))])
            case .block: return .effects([.people(.block(uid: uid))])
            }
        }
        if let typed = remark {
            switch key {
            case .escape: remark = nil
            case .enter:
                remark = nil
                return .effects([.people(.remark(uid: uid, typed))])
            case .backspace: remark = String(typed.dropLast())
            case .char(let c): remark = typed + String(c)
            case .paste(let text): remark = typed + TerminalSanitizer.oneLine(text)
            default: break
            }
            return .stay
        }
        let friend = people.contact(uid)
        switch key {
        case .char("a") where friend == nil && !people.isBlocked(uid): return .close([.people(.request(user, message: ""))])
        case .char("d") where friend != nil: asking = .removeFriend
        case .char("m") where friend != nil: remark = friend?.remark ?? ""
        case .char("b"):
            if people.isBlocked(uid) { return .effects([.people(.unblock(uid: uid))]) }
            asking = .block
        case .char("c"): return Step(next: .confirm(.clearHistory))
        // Their card (名片) into the open chat: `/card ACCOUNT` waits in the input bar for Enter.
        case .char("k"): return Step(next: .type("/card " + (user.account ?? String(uid))))
        // v4: the secret chat with them; 安全码 verified; its disappearing-message timer.
        case .char("S"): return .close([.startSecret(user)])
        case .char("v"):
            guard let number = safetyNumber else { return .stay }
            verified = true
            return .effects([.people(.verify(uid: uid, number: number))])
        case .char("t"):
            guard let id = secretChat else { return .stay }
            let next = PeerPage.timers.first { $0 > timer } ?? 0
            timer = next
            return .effects([.people(.secretTimer(conversationId: id, seconds: next))])
        case .escape, .char("q"), .enter: return .close()
        default: break
        }
        return .stay
    }
}

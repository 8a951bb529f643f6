import ChatCore
import ChatStore
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI

/// People (PROTOCOL.md v3): the contacts view, adding a friend, my page and
/// a peer's page; their keys and what their effects answer.
extension Update {
    static func people(_ event: PeopleEvent, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch event {
        case .loaded(let contacts, let requests, let blocked):
            s.people.contacts = contacts
            s.people.requests = requests
            if let blocked { s.people.blocked = blocked }
            if case .contacts(var view) = s.mode {
                let rows = contactRows(s, view, L)
                view.index = ContactsView.settle(view.moved ? min(view.index, max(0, rows.count - 1)) : 0, in: rows)
                s.mode = .contacts(view)
            }
        case .found(let query, let users):
            if case .addFriend(var form) = s.mode, form.query.trimmingCharacters(in: .whitespaces) == query, form.card == nil {
                form.found = users
                form.index = 0
                s.mode = .addFriend(form)
            }
        case .mine(let profile, let settings, let devices):
            guard case .me(var page) = s.mode else { return [] }
            if let profile { page.profile = profile }
            if let settings { page.acceptStrangers = settings.acceptStrangers }
            if let devices { page.devices = devices }
            page.index = min(page.index, page.rows.count - 1)
            s.mode = .me(page)
            if let profile, !profile.avatar.isEmpty { return avatarWanted(profile.avatar, &s) }
        case .peer(let page, let opening):
            if !opening {
                guard case .peer(let shown) = s.mode, shown.user.uid == page.user.uid else { return [] }
            }
            s.mode = .peer(page)
            if !page.user.avatar.isEmpty { return avatarWanted(page.user.avatar, &s) }
        case .loggedOut:
            s.signedOut = true
            s.wantsQuit = true
        }
        return []
    }

    /// A sync batch changed friends or requests: the view follows the store,
    /// and a new request to me is said on the status line and the desktop.
    static func peopleChanged(_ changes: AppliedChanges, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        guard changes.peopleChanged else { return [] }
        var effects: [Effect] = [.people(.load)]
        if let r = changes.newRequests.last {
            let text = L.string("people.incoming", ["who": TerminalSanitizer.oneLine(r.from.username)])
            s.status = text
            effects.append(.notify(title: "Tongban", body: text))
        }
        return effects
    }

    /// v4: my account signed in on another device: said on the status line
    /// and the desktop with how to sign it out (my page's devices, `x`); an
    /// open page of mine lists it. The device names itself, so its words
    /// are cleaned to one line, and come last: a narrow status line cuts
    /// them, not the way to sign it out.
    static func newLogin(_ changes: AppliedChanges, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        guard let login = changes.newLogins.last else { return [] }
        var agent = TerminalSanitizer.oneLine(login.userAgent).trimmingCharacters(in: .whitespaces)
        if agent.isEmpty { agent = L.string("people.unknownDevice") }
        let text = L.string("people.newLogin", ["agent": agent, "key": Binding.keyName(of: .listMe, s.keyMap)])
        s.status = text
        var effects: [Effect] = [.notify(title: "Tongban", body: text)]
        if case .me = s.mode { effects.append(.people(.loadMine)) }
        return effects
    }

    /// A picture to decode for a page (the thumbnails' path, keyed by objectKey).
    static func avatarWanted(_ key: String, _ s: inout AppState) -> [Effect] {
        guard s.thumbnails[key] == nil else { return [] }
        s.thumbnails[key] = .pending
        return [.decodeAvatar(key: key)]
    }

    static func contactRows(_ s: AppState, _ view: ContactsView, _ L: Localizer) -> [ContactsView.Row] {
        ContactsView.rows(s.people, groups: s.list.conversations, query: view.query, L)
    }

    /// `c` in the list.
    static func openContacts(_ s: inout AppState, _ L: Localizer) -> [Effect] {
        var view = ContactsView()
        view.index = ContactsView.settle(0, in: contactRows(s, view, L))
        s.mode = .contacts(view)
        return [.people(.load)]
    }

    /// The contacts view: ↑↓ move, Enter acts on the row (accepts a request,
    /// opens a friend's or group's chat, unblocks), `x` (or Delete) declines
    /// a request; other letters filter, Backspace unfilters, Esc closes.
    static func contactsKey(_ key: Key, _ view: ContactsView, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var view = view
        let rows = contactRows(s, view, L)
        let row = view.index < rows.count ? rows[view.index] : nil
        let request: FriendRequest? = if case .request(let r)? = row { r } else { nil }
        switch key {
        case .escape: s.mode = .normal; return []
        case .down:
            view.index = ContactsView.step(view.index, by: 1, in: rows)
            view.moved = true
        case .up:
            view.index = ContactsView.step(view.index, by: -1, in: rows)
            view.moved = true
        case .enter:
            switch row {
            case .request(let r)?: return [.people(.respond(requestId: r.requestId, accept: true))]
            case .friend(let c)?:
                s.mode = .normal
                return [.startConversation(c.user)]
            case .group(let c)?:
                s.mode = .normal
                return open(c, &s)
            case .blocked(let u)?: return [.people(.unblock(uid: u.uid))]
            default: return []
            }
        case .delete:
            guard let request else { return [] }
            return [.people(.respond(requestId: request.requestId, accept: false))]
        case .char("x") where view.query.isEmpty && request != nil:
            return [.people(.respond(requestId: request?.requestId ?? 0, accept: false))]
        case .backspace:
            guard !view.query.isEmpty else { return [] }
            view.query.removeLast()
            view.index = ContactsView.settle(0, in: contactRows(s, view, L))
        case .char(let c):
            view.query.append(c)
            view.index = ContactsView.settle(0, in: contactRows(s, view, L))
        case .paste(let text):
            view.query += TerminalSanitizer.oneLine(text)
            view.index = ContactsView.settle(0, in: contactRows(s, view, L))
        default: return []
        }
        s.mode = .contacts(view)
        return []
    }

    /// 添加好友: type and Enter searches; ↑↓ pick, Enter shows the card;
    /// on the card type the words to send, Enter sends, Esc goes back.
    static func addFriendKey(_ key: Key, _ form: AddFriendForm, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var form = form
        if let person = form.card {
            switch key {
            case .escape: form.card = nil
            case .enter:
                s.mode = .normal
                return [.people(.request(person, message: form.message))]
            case .backspace: if !form.message.isEmpty { form.message.removeLast() }
            case .char(let c): form.message.append(c)
            case .paste(let text): form.message += TerminalSanitizer.oneLine(text)
            default: break
            }
            s.mode = .addFriend(form)
            return []
        }
        switch key {
        case .escape: s.mode = .normal; return []
        case .down: form.index = min(form.index + 1, max(0, (form.found?.count ?? 1) - 1))
        case .up: form.index = max(0, form.index - 1)
        case .enter:
            if let found = form.found, !found.isEmpty, form.index < found.count {
                form.card = found[form.index]
            } else {
                let q = form.query.trimmingCharacters(in: .whitespaces)
                guard !q.isEmpty else { return [] }
                s.mode = .addFriend(form)
                return [.people(.search(q))]
            }
        case .backspace:
            guard !form.query.isEmpty else { return [] }
            form.query.removeLast()
            form.found = nil
        case .char(let c):
            form.query.append(c)
            form.found = nil
        case .paste(let text):
            form.query += TerminalSanitizer.oneLine(text)
            form.found = nil
        default: return []
        }
        s.mode = .addFriend(form)
        if let person = form.card, !person.avatar.isEmpty { return avatarWanted(person.avatar, &s) }
        return []
    }

    /// `u` in the list.
    static func openMyPage(_ s: inout AppState) -> [Effect] {
        s.mode = .me(MyPage())
        return [.people(.loadMine)]
    }

    /// My page: ↑↓ move; Enter edits a field in place (Enter saves, Esc
    /// drops), flips the strangers switch, asks to log out; `x` on a device
    /// asks to sign it out; `p` (or Enter on its row) changes the password;
    /// y answers a question, anything else says no.
    static func myPageKey(_ key: Key, _ page: MyPage, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var page = page
        if let form = page.password { return passwordKey(key, form, page, &s, L) }
        if let asking = page.asking {
            page.asking = nil
            s.mode = .me(page)
            guard key == .char("y") || key == .char("Y") else { return [] }
            switch asking {
            case .signOutDevice(let d):
                page.devices.removeAll { $0.sessionId == d.sessionId }
                page.index = min(page.index, page.rows.count - 1)
                s.mode = .me(page)
                return [.people(.signOutDevice(d.sessionId))]
            case .logout:
                return [.people(.logout)]
            }
        }
        if let field = page.editing {
            switch key {
            case .escape: page.editing = nil
            case .enter:
                page.editing = nil
                s.mode = .me(page)
                let text = page.text
                switch field {
                case .name: return text.trimmingCharacters(in: .whitespaces).isEmpty ? [] : [.people(.updateProfile(name: text, signature: nil))]
                case .signature: return [.people(.updateProfile(name: nil, signature: text))]
                case .avatar:
                    let path = text.trimmingCharacters(in: .whitespaces)
                    return path.isEmpty ? [] : [.people(.setAvatar(path: path))]
                }
            case .backspace: if !page.text.isEmpty { page.text.removeLast() }
            case .char(let c): page.text.append(c)
            case .paste(let text): page.text += TerminalSanitizer.oneLine(text)
            default: break
            }
            s.mode = .me(page)
            return []
        }
        let rows = page.rows
        let row = rows[min(page.index, rows.count - 1)]
        switch key {
        case .escape, .char("q"): s.mode = .normal; return []
        case .down, .char("j"): page.index = min(page.index + 1, rows.count - 1)
        case .up, .char("k"): page.index = max(0, page.index - 1)
        case .enter, .char(" "):
            switch row {
            case .field(let f):
                page.editing = f
                switch f {
                case .name: page.text = page.profile?.username ?? ""
                case .signature: page.text = page.profile?.signature ?? ""
                case .avatar: page.text = "~/"
                }
            case .strangers:
                guard let accept = page.acceptStrangers else { return [] }
                page.acceptStrangers = !accept
                s.mode = .me(page)
                return [.people(.acceptStrangers(!accept))]
            case .device(let d) where !d.current: page.asking = .signOutDevice(d)
            case .device: break
            case .password: page.password = PasswordForm()
            case .logout: page.asking = .logout
            }
        case .char("x"):
            if case .device(let d) = row, !d.current { page.asking = .signOutDevice(d) }
        case .char("p"): page.password = PasswordForm()
        default: return []
        }
        s.mode = .me(page)
        return []
    }

    /// Changing the password: what is typed shows as stars; Enter goes on
    /// to the next question. A new password of the wrong length, or one not
    /// typed the same twice, is asked for again before anything is sent;
    /// Esc drops the lot.
    static func passwordKey(_ key: Key, _ form: PasswordForm, _ page: MyPage, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var page = page, form = form
        switch key {
        case .escape: page.password = nil
        case .backspace: if !form.typed.isEmpty { form.typed.removeLast() }
        case .char(let c): form.typed.append(c)
        // A pasted password keeps its spaces; only control characters (a trailing newline) go.
        case .paste(let text): form.typed += String(text.unicodeScalars.filter { $0.properties.generalCategory != .control })
        case .enter where !form.typed.isEmpty:
            if form.step == .again && form.again == form.new {
                page.password = nil
                s.mode = .me(page)
                return [.people(.changePassword(current: form.current, new: form.new))]
            }
            form = passwordStep(form, &s, L)
        default: return []
        }
        if page.password != nil { page.password = form }
        s.mode = .me(page)
        return []
    }

    /// Enter on a question of the password form that does not send it:
    /// the next question, or the new password asked again (and why).
    static func passwordStep(_ form: PasswordForm, _ s: inout AppState, _ L: Localizer) -> PasswordForm {
        var form = form
        switch form.step {
        case .current:
            form.step = .new
        case .new:
            if let problem = AccountRules.problem(password: form.new) {
                s.status = problem.text(L)
                form.new = ""
            } else {
                form.step = .again
            }
        case .again:
            s.status = L.string("password.mismatch")
            (form.new, form.again, form.step) = ("", "", .new)
        }
        return form
    }

    /// A peer's page: `a` asks to be friends, `d` stops being friends (y/N),
    /// `m` types a remark (Enter saves), `b` blocks (y/N) or unblocks, `c`
    /// clears the history; Esc closes.
    static func peerKey(_ key: Key, _ page: PeerPage, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        var page = page
        let uid = page.user.uid
        if let asking = page.asking {
            page.asking = nil
            s.mode = .peer(page)
            guard key == .char("y") || key == .char("Y") else { return [] }
            switch asking {
            case .removeFriend:
                guard let c = s.people.contact(uid) else { return [] }
                return [.people(.remove(c))]
            case .block: return [.people(.block(uid: uid))]
            }
        }
        if let remark = page.remark {
            var typed = remark
            switch key {
            case .escape: page.remark = nil
            case .enter:
                page.remark = nil
                s.mode = .peer(page)
                return [.people(.remark(uid: uid, typed))]
            case .backspace: if !typed.isEmpty { typed.removeLast() }; page.remark = typed
            case .char(let c): typed.append(c); page.remark = typed
            case .paste(let text): page.remark = typed + TerminalSanitizer.oneLine(text)
            default: break
            }
            s.mode = .peer(page)
            return []
        }
        let friend = s.people.contact(uid)
        switch key {
        case .char("a") where friend == nil && !s.people.isBlocked(uid):
            s.mode = .normal
            return [.people(.request(page.user, message: ""))]
        case .char("d") where friend != nil: page.asking = .removeFriend
        case .char("m") where friend != nil: page.remark = friend?.remark ?? ""
        case .char("b"):
            if s.people.isBlocked(uid) { return [.people(.unblock(uid: uid))] }
            page.asking = .block
        case .char("c"):
            s.mode = .confirm(.clearHistory)
            return []
        case .escape, .char("q"), .enter:
            s.mode = .normal
            return []
        default: return []
        }
        s.mode = .peer(page)
        return []
    }
}

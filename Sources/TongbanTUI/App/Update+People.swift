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
            s.people.loaded(contacts: contacts, requests: requests, blocked: blocked)
            if case .contacts(var view) = s.mode {
                view.reloaded(s.people, groups: s.list.conversations, L)
                s.mode = .contacts(view)
            }
        case .rooms(let rooms):
            s.people.rooms = rooms
            if case .contacts(var view) = s.mode {
                view.reloaded(s.people, groups: s.list.conversations, L)
                s.mode = .contacts(view)
            }
        case .found(let query, let users):
            if case .addFriend(var form) = s.mode, form.found(users, for: query) { s.mode = .addFriend(form) }
        case .mine(let profile, let settings, let devices):
            guard case .me(var page) = s.mode else { return [] }
            let step = page.loaded(profile, settings, devices)
            return run(step, page: .me(page), &s, L)
        case .peer(let page, let opening):
            if !opening {
                guard case .peer(let shown) = s.mode, shown.user.uid == page.user.uid else { return [] }
            }
            return run(Step(pictures: [page.user.avatar]), page: .peer(page), &s, L)
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

    /// `c` in the list.
    static func openContacts(_ s: inout AppState, _ L: Localizer) -> [Effect] {
        s.mode = .contacts(ContactsView.opened(s.people, groups: s.list.conversations, L))
        return [.people(.load)]
    }

    /// `u` in the list.
    static func openMyPage(_ s: inout AppState) -> [Effect] {
        s.mode = .me(MyPage())
        return [.people(.loadMine)]
    }

    /// A key on a people page, to the page's own update.
    static func peopleKey(_ key: Key, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        switch s.mode {
        case .contacts(var view):
            let step = view.update(key, s.people, groups: s.list.conversations, L)
            return run(step, page: .contacts(view), &s, L)
        case .addFriend(var form):
            let step = form.update(key)
            return run(step, page: .addFriend(form), &s, L)
        case .me(var page):
            let step = page.update(key, L)
            return run(step, page: .me(page), &s, L)
        case .peer(var page):
            let step = page.update(key, s.people)
            return run(step, page: .peer(page), &s, L)
        default:
            return []
        }
    }
}

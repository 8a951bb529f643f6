import ChatCore
import ChatViewModels
import TerminalUI

/// `n`: typing searches on Enter; then the users found, and below them
/// "new group named q", "join group q", "add a friend", "enter room q",
/// "the room directory" and "new room named q". Enter on nothing typed
/// opens the room directory.
struct NewChatDialog: Equatable {
    var query = ""
    /// The users found for `query`; nil before the search ran.
    var found: [UserBasicInfo]?
    var index = 0

    /// The rows below the users found.
    static let actionRows = 7
    /// The user the 私密聊天 row is for: the one last chosen among those found.
    var person = 0

    mutating func update(_ key: Key, rooms: [RoomEntry], _ L: Localizer) -> Step {
        let q = query.trimmingCharacters(in: .whitespaces)
        switch key {
        case .escape: return .close()
        case .enter:
            guard let users = found else { return q.isEmpty ? Self.directory(q) : .effects([.searchUsers(query)]) }
            switch index - users.count {
            case ..<0: return .close([.startConversation(users[index])])
            case 0: return GroupRules.isValidName(q) ? Step(next: .show(.newGroup(AppState.NewGroupForm(name: q)))) : .close()
            case 1: return .close(q.isEmpty ? [] : [.joinGroup(unique: q)])
            case 2:
                // 添加好友: the same search's people, each with a card.
                var step = Step(next: .show(.addFriend(AddFriendForm(query: q, found: users))))
                if users.isEmpty { step.status = L.string("people.noSuchUser") }
                return step
            case 3:
                let unique = q.lowercased()
                if let mine = rooms.first(where: { $0.info.uniqueName == unique }) { return Step(next: .open(mine.conversation)) }
                if GroupRules.isValidUniqueName(unique) { return .close([.room(.enter(unique: unique, again: false))]) }
                var step = Step.close()
                step.status = L.string("ui.room.badUnique")
                return step
            case 4: return Self.directory(q)
            case 5: return GroupRules.isValidName(q) ? Step(next: .show(.newRoom(NewRoomForm(name: q)))) : .close()
            default:
                // 私密聊天 with the person last chosen (the first found until then).
                guard users.indices.contains(person) else { return .close() }
                return .close([.startSecret(users[person])])
            }
        case .down:
            if let found {
                index = min(index + 1, max(0, found.count + Self.actionRows - 1))
                if index < found.count { person = index }
            }
        case .up:
            if let found {
                index = max(0, index - 1)
                if index < found.count { person = index }
            }
        case .backspace: self = NewChatDialog(query: String(query.dropLast()))
        case .char(let c): self = NewChatDialog(query: query + String(c))
        case .paste(let text): self = NewChatDialog(query: query + text)
        default: break
        }
        return .stay
    }

    /// The room directory, searching `query` at once.
    static func directory(_ query: String) -> Step {
        Step(effects: [.room(.directory(query))], next: .show(.roomDirectory(RoomDirectory(query: query))))
    }
}

/// Forwarding messages (oldest first): typing filters the conversations,
/// ↑/↓ move, Space chooses several, Enter sends to those chosen (or the
/// one highlighted), Esc drops it.
struct ForwardPicker: Equatable {
    var messages: [String]
    /// As one merged forward (聊天记录) rather than one by one.
    var merged: Bool
    var query = ""
    var chosen: [String] = []
    var index = 0

    mutating func update(_ key: Key, conversations: [Conversation]) -> Step {
        let rows = ListState.filter(conversations, by: query)
        switch key {
        case .escape: return .close()
        case .down: index = min(index + 1, max(0, rows.count - 1))
        case .up: index = max(0, index - 1)
        case .char(" "):
            guard index < rows.count else { return .stay }
            if let i = chosen.firstIndex(of: rows[index].id) { chosen.remove(at: i) } else { chosen.append(rows[index].id) }
        case .enter:
            let targets = chosen.isEmpty ? (index < rows.count ? [rows[index].id] : []) : chosen
            guard !targets.isEmpty else { return .stay }
            return .close([merged ? .forwardMerged(messageIds: messages, to: targets) : .forward(messageIds: messages, to: targets)])
        case .backspace:
            query = String(query.dropLast())
            index = 0
        case .char(let c):
            query.append(c)
            index = 0
        case .paste(let text):
            query += text
            index = 0
        default: break
        }
        return .stay
    }
}

/// A list to pick from (favourites, signals, the message menu): its items
/// and the one highlighted.
struct Pick<Item: Equatable>: Equatable {
    var items: [Item]
    var index = 0

    init(_ items: [Item], index: Int = 0) {
        self.items = items
        self.index = index
    }

    var current: Item? { index < items.count ? items[index] : nil }

    /// j/k and the arrows move; whether the key was one of them.
    mutating func move(_ key: Key) -> Bool {
        switch key {
        case .down, .char("j"): index = min(index + 1, max(0, items.count - 1))
        case .up, .char("k"): index = max(0, index - 1)
        default: return false
        }
        return true
    }
}

extension Pick where Item == Favorite {
    /// My favourites: Enter opens the message in its chat, `x` removes the
    /// favourite, Esc closes.
    mutating func update(_ key: Key) -> Step {
        if move(key) { return .stay }
        switch key {
        case .escape, .char("q"): return .close()
        case .char("x"):
            guard let gone = current else { return .stay }
            items.remove(at: index)
            index = min(index, max(0, items.count - 1))
            return .effects([.removeFavorite(gone.favoriteId)])
        case .enter:
            guard current != nil else { return .close() }
            return Step(next: .show(.favorite(FavoritePage(list: self))))
        default: return .stay
        }
    }
}

/// One favourite's page: the whole message, the chat it came from and when
/// it was kept. Enter jumps to it in its chat, `x` removes it, Esc goes
/// back to the list.
struct FavoritePage: Equatable {
    /// The list it was opened from (its highlighted item is this one).
    var list: Pick<Favorite>
    /// The first line shown (j/k scroll a long message).
    var top = 0

    var favorite: Favorite? { list.current }

    mutating func update(_ key: Key) -> Step {
        guard let f = favorite else { return .close() }
        switch key {
        case .escape, .char("q"), .left: return Step(next: .show(.favorites(list)))
        case .down, .char("j"): top += 1
        case .up, .char("k"): top = max(0, top - 1)
        case .enter:
            return .close([.openMessage(conversationId: f.conversationId, name: f.conversationName, seq: f.message.seq,
                                        messageId: f.message.clientMsgID)])
        case .char("x"):
            var rest = list
            let step = rest.update(.char("x"))
            return Step(effects: step.effects, next: .show(.favorites(rest)))
        default: break
        }
        return .stay
    }
}

extension Pick where Item == SignalInboxItem {
    /// The signals inbox: Enter opens the chat of the reply, Esc closes.
    mutating func update(_ key: Key) -> Step {
        if move(key) { return .stay }
        switch key {
        case .escape, .char("q"): return .close()
        case .enter: return .close(current.map { [.openSignal($0)] } ?? [])
        default: return .stay
        }
    }
}

/// `/` in a chat: typing searches its messages; ↑/↓ move; Enter brings
/// the hit into the window and selects it; Esc closes.
struct MessageSearch: Equatable {
    var query = ""
    var hits: [AppState.SearchHit] = []
    var index = 0

    mutating func update(_ key: Key, chatOpen: Bool) -> Step {
        switch key {
        case .escape: return .close()
        case .enter:
            guard index < hits.count, let seq = hits[index].seq, chatOpen else { return .close() }
            var step = Step.close([.reveal(seq: seq, messageId: hits[index].clientMsgId)])
            step.focus = .messages
            return step
        case .down: index = min(index + 1, max(0, hits.count - 1))
        case .up: index = max(0, index - 1)
        case .backspace: return typed(String(query.dropLast()))
        case .char(let c): return typed(query + String(c))
        case .paste(let text): return typed(query + text)
        default: break
        }
        return .stay
    }

    /// A new query: the hits of the previous one stay until the new ones arrive.
    private mutating func typed(_ new: String) -> Step {
        self = MessageSearch(query: new, hits: new.isEmpty ? [] : hits)
        return new.isEmpty ? .stay : .effects([.searchMessages(new)])
    }
}

import ChatCore
import Foundation

/// `--demo`: accounts `me`, `alice`, `bob`, `carol` (password
/// `tongban-demo`) with history that shows every feature, and demo peers
/// that answer what `me` sends.
struct DemoSeeder {
    static let password = "tongban-demo"
    let service: ServerServices

    func seedIfNeeded() throws {
        if try uid(ofAccount: "me") == nil { try seed() }
        // Demo data seeded before rooms existed gets its room too (and a
        // dropped lobby is back at the next start); before friends and the
        // signal feed, those too.
        try seedRoom()
        try seedFriendsAndSignals()
        try installPeers()
        carolAsksLater()
    }

    func uid(ofAccount account: String) throws -> Int? {
        try service.storage.read { tx in try tx.accounts.uid(ofAccount: account) }
    }

    func seed() throws {
        let me = try service.auth.register(RegisterRequest(account: "me", password: Self.password, username: "我"), seeded: true).uid
        let alice = try service.auth.register(RegisterRequest(account: "alice", password: Self.password, username: "Alice 爱丽丝")).uid
        let bob = try service.auth.register(RegisterRequest(account: "bob", password: Self.password, username: "Bob 鲍勃")).uid
        let carol = try service.auth.register(RegisterRequest(account: "carol", password: Self.password, username: "Carol 卡罗尔")).uid

        let day: Int = 24 * 3600 * 1000
        let now = service.config.clock.nowMs()
        let withAlice = ConversationIDHelper.make(myUid: me, targetUid: alice)
        let withBob = ConversationIDHelper.make(myUid: me, targetUid: bob)

        // Media objects, uploaded by their senders.
        let picture = SampleMedia.png(width: 96, height: 64) { x, y in
            (UInt8(40 + x * 2), UInt8(120 + y), UInt8(200 - x))
        }
        let imageKey = try service.media.upload(caller: alice, kind: "chat_image", declaredType: "image/png", bytes: picture).objectKey
        let flashPicture = SampleMedia.png(width: 64, height: 64) { x, y in
            ((x / 8 + y / 8) % 2 == 0 ? (230, 90, 90) : (250, 240, 200))
        }
        let flashKey = try service.media.upload(caller: bob, kind: "chat_image", declaredType: "image/png", bytes: flashPicture).objectKey
        let voiceKey = try service.media.upload(caller: alice, kind: "chat_audio", declaredType: "audio/wav",
                                          bytes: SampleMedia.wav(seconds: 12)).objectKey

        func custom(_ fields: [String: Any]) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        }

        // Signals: me asked something; carol's reply waits unopened in the inbox,
        // bob's reply turned into a chat.
        let signal = try service.signals.create(caller: me, content: "周末有人一起去爬香山吗？")
        _ = try service.signals.reply(caller: carol, signalId: signal, content: "我去！几点集合？")
        let bobReply = try service.signals.reply(caller: bob, signalId: signal, content: "算我一个")

        let messages = service.messages, conversations = service.conversations
        try service.storage.write { tx in
            var cursors: [Int: Int] = [:]
            func put(_ conv: String, _ from: Int, _ to: Int, _ type: Int, _ content: String, _ at: Int, control: Bool = false) throws -> MessageRow {
                try messages.append(conversationId: conv, sender: from, to: .peer(to), clientMsgID: "demo-" + UUID().uuidString,
                                    contentType: type, content: content, isControl: control, in: tx,
                                    cursors: &cursors, sendTime: at)
            }
            try conversations.ensure(withAlice, caller: me, peer: alice, in: tx)
            try conversations.ensure(withBob, caller: me, peer: bob, in: tx)

            // Alice: three days of history, an image, a voice message, a revoked message. Pinned.
            _ = try put(withAlice, alice, me, 101, "早上好！这是同伴终端的演示 👋", now - 3 * day)
            _ = try put(withAlice, me, alice, 101, "早！终端里也能聊天，太好了", now - 3 * day + 60_000)
            let image = try put(withAlice, alice, me, 110, custom(["type": "image", "objectKey": imageKey, "url": "", "expireAt": 0,
                                                                   "w": 96, "h": 64]),
                                now - 2 * day)
            let oops = try put(withAlice, me, alice, 101, "这条消息发错了", now - 2 * day + 30_000)
            let notice = try put(withAlice, me, alice, 2101, MessageService.json(["clientMsgID": oops.clientMsgID]),
                                 now - 2 * day + 40_000, control: true)
            try tx.messages.markRevoked(id: oops.id, noticeSeq: notice.seq)
            try messages.scrubLog(messageId: oops.id, in: tx)
            let voice = try put(withAlice, alice, me, 110, custom(["type": "audio", "objectKey": voiceKey, "url": "", "expireAt": 0,
                                                                   "durationSec": 12]),
                                now - day)
            _ = try put(withAlice, me, alice, 101, "收到语音了，晚点回你。\n第二行：中文、English 和 emoji 😀 混排", now - day + 120_000)
            _ = try put(withAlice, alice, me, 101, "好的，发消息给我试试，我会回复你", now - 3_600_000)
            var pinned = try conversations.member(withAlice, uid: me, in: tx)
            pinned.isPinned = true
            pinned.readSeq = try tx.conversations.maxSeq(of: withAlice) ?? 0
            try tx.conversations.update(pinned)

            // Bob: came from a signal, a signal quote, a flash image, unread messages.
            _ = try put(withBob, me, bob, 110, custom(["type": "signal_quote", "signalId": signal, "replyContent": "算我一个",
                                                        "signalContent": "周末有人一起去爬香山吗？"]), now - 2 * 3_600_000)
            let flash = try put(withBob, bob, me, 110, custom(["type": "flash_image", "objectKey": flashKey, "url": "", "expireAt": 0]),
                                now - 20 * 60_000)
            _ = try put(withBob, bob, me, 101, "给你发了张闪照，只能看一次哦", now - 19 * 60_000)
            _ = try put(withBob, bob, me, 101, "周六早上八点，香山东门见？", now - 5 * 60_000)
            try tx.conversations.markOpened(withBob)
            try tx.signals.markOpened(reply: Int(bobReply) ?? 0)
            // Each grant names its message: a member reads what was sent while they were in (PROTOCOL.md v4).
            for (key, row) in [(imageKey, image), (voiceKey, voice), (flashKey, flash)] {
                try tx.media.grant(key, conversationId: row.conversationId, messageId: row.id)
            }
        }
        try seedGroup(me: me, alice: alice, bob: bob, carol: carol, now: now)
    }

    static let groupUniqueName = "weekend_hike"

    /// `周末爬山群`: Alice made it for the four of them; a few messages, one
    /// of them mentioning me. Older than Alice's last message, so the
    /// list's order of the one-to-one demo chats stays as it was.
    func seedGroup(me: Int, alice: Int, bob: Int, carol: Int, now: Int) throws {
        let minute = 60_000
        let info = try service.groups.create(
            caller: alice, CreateGroupRequest(name: "周末爬山群", uniqueName: Self.groupUniqueName, memberIds: [me, bob, carol],
                                              notice: "周六早上八点，香山东门集合"),
            at: now - 180 * minute)
        let id = info.conversationId
        let members = [alice, me, bob, carol]
        let messages = service.messages
        let cursors = try service.storage.write { tx -> [Int: Int] in
            var cursors: [Int: Int] = [:]
            func put(_ from: Int, _ type: Int, _ content: String, _ at: Int) throws -> MessageRow {
                try messages.append(conversationId: id, sender: from, to: .members(members), clientMsgID: "demo-" + UUID().uuidString,
                                    contentType: type, content: content, isControl: false, in: tx, cursors: &cursors, sendTime: at)
            }
            _ = try put(alice, ContentType.text, "大家好，这周六去爬香山 ⛰️", now - 170 * minute)
            _ = try put(bob, ContentType.text, "好啊，我带水和零食", now - 160 * minute)
            _ = try put(carol, ContentType.text, "我可能晚到半小时 🙏", now - 150 * minute)
            let ask = MentionPayload(text: "@我 你能开车吗？", atUserIDs: [ConversationIDHelper.imUid(me)])
            let row = try put(alice, ContentType.mention, ask.jsonText, now - 120 * minute)
            try tx.conversations.noteMention(id, seq: row.seq, uids: [me])
            return cursors
        }
        service.notices.committed(cursors)
    }

    static let roomUniqueName = "tongban_lobby"

    /// `同伴大厅`: a room Alice made, with a topic and what she, Bob and
    /// Carol said there while they were in it. Nobody is in it now (a room
    /// is where you are while you are there): `me` finds it in the
    /// directory, and sees its newest messages on entering. Seeded when no
    /// room has its unique name.
    func seedRoom() throws {
        guard let alice = try uid(ofAccount: "alice"), let bob = try uid(ofAccount: "bob"),
              let carol = try uid(ofAccount: "carol") else { return }
        let minute = 60_000
        let now = service.config.clock.nowMs()
        let messages = service.messages
        try service.storage.write { tx in
            // Looked up in the same transaction: nodes starting together on one database take turns.
            guard try tx.rooms.room(uniqueName: Self.roomUniqueName) == nil else { return }
            let opened = now - 95 * minute
            let rid = try tx.rooms.insert(name: "同伴大厅", uniqueName: Self.roomUniqueName,
                                          topic: "演示房间：进来打个招呼 👋 在线即在场，离线即离开", owner: alice, createdAt: opened)
            try tx.conversations.create(ConversationIDHelper.room(rid), uidLow: 0, uidHigh: 0, createdAt: opened)
            var present: [Int] = []
            func enter(_ uid: Int, _ at: Int) throws {
                present.append(uid)
                _ = try RoomService.appendNotice(ContentType.roomEntered, by: uid, in: rid, to: present, at: at, messages: messages, tx: tx)
            }
            func leave(_ uid: Int, _ at: Int) throws {
                _ = try RoomService.appendNotice(ContentType.roomLeft, by: uid, in: rid, to: present, at: at, messages: messages, tx: tx)
                present.removeAll { $0 == uid }
            }
            func say(_ uid: Int, _ text: String, _ at: Int) throws {
                var none: [Int: Int] = [:]
                _ = try messages.append(conversationId: ConversationIDHelper.room(rid), sender: uid, to: .present(present),
                                        clientMsgID: "demo-" + UUID().uuidString, contentType: ContentType.text, content: text,
                                        isControl: false, in: tx, cursors: &none, sendTime: at)
            }
            try enter(alice, opened)
            try say(alice, "欢迎来到同伴大厅！房间没有未读，离线就算离开", opened + minute)
            try enter(bob, opened + 3 * minute)
            try say(bob, "原来终端里也有聊天室 😄", opened + 4 * minute)
            try enter(carol, opened + 6 * minute)
            try say(carol, "大家好，我路过看看", opened + 7 * minute)
            try leave(carol, opened + 12 * minute)
            try say(alice, "按 , 可以看房间信息和在场的人", opened + 14 * minute)
            try leave(bob, opened + 20 * minute)
            try leave(alice, opened + 21 * minute)
        }
    }

    /// `me` is friends with Alice and Bob, who each posted a signal to the
    /// feed (PROTOCOL.md v4). Once: a friendship found means it was done.
    func seedFriendsAndSignals() throws {
        guard let me = try uid(ofAccount: "me"), let alice = try uid(ofAccount: "alice"),
              let bob = try uid(ofAccount: "bob") else { return }
        let now = service.config.clock.nowMs()
        let done = try service.storage.write { tx -> Bool in
            guard try tx.people.friend(me, alice) == nil else { return true }
            try tx.people.addFriends(me, alice, since: now - 3 * 24 * 3_600_000)
            try tx.people.addFriends(me, bob, since: now - 2 * 3_600_000)
            return false
        }
        guard !done else { return }
        _ = try service.signals.create(caller: alice, content: "有人推荐好看的科幻小说吗？最近想读点新的 📚")
        _ = try service.signals.create(caller: bob, content: "今晚谁一起打羽毛球？🏸 还差一个人")
    }

    /// Carol, a stranger, asks `me` to be friends a while after the server
    /// starts (once: an earlier request, answered or not, stays as it is).
    func carolAsksLater() {
        let service = self.service, delay = service.config.demoFriendRequestDelay
        guard let me = try? uid(ofAccount: "me"), let carol = try? uid(ofAccount: "carol") else { return }
        Task {
            try? await Task.sleep(for: delay)
            let asked = (try? service.storage.read { tx in
                try tx.people.request(from: carol, to: me) != nil || tx.people.friend(me, carol) != nil
            }) ?? true
            if !asked { _ = try? service.people.request(caller: carol, userId: me, message: "你好，我是爬山群里的 Carol，加个好友吧") }
        }
    }

    /// Alice and Bob answer `me` after a short pause, in their chats and
    /// in the demo group.
    func installPeers() throws {
        let me = try uid(ofAccount: "me") ?? 0
        let alice = try uid(ofAccount: "alice") ?? 0, bob = try uid(ofAccount: "bob") ?? 0
        let peers = Set([alice, bob])
        let group = try service.storage.read { tx in try tx.groups.group(uniqueName: Self.groupUniqueName) }
        let groupId = group.map { ConversationIDHelper.group($0.gid) }
        let service = self.service
        let delay = service.config.demoReplyDelay
        service.notices.afterSend.withLock { hook in
            hook = AfterSendHook { message in
                guard ConversationIDHelper.uid(fromImUid: message.sendID) == me,
                      message.contentType != ContentType.revokeNotice else { return }
                let responders: [Int]
                if message.conversationId == groupId {
                    responders = [alice, bob]
                } else if let peer = ConversationIDHelper.uid(fromImUid: message.recvID), peers.contains(peer) {
                    responders = [peer]
                } else {
                    return
                }
                let m = IMMessageMapper.map(message, currentUID: message.recvID)
                if m.isControl { return }
                for (n, peer) in responders.enumerated() {
                    Self.answer(m, of: message, by: peer, after: delay * (n + 1), service: service)
                }
            }
        }
    }

    /// One demo peer's answer to `m` (whose wire form is `message`).
    private static func answer(_ m: ChatMessage, of message: WireMessage, by peer: Int, after delay: Duration,
                               service: ServerServices) {
        Task {
            try? await Task.sleep(for: delay)
            var reply: String
            switch m.type {
            case .text, .mention: reply = "收到：" + (m.text ?? "")
            case .flashImage:
                _ = try? service.messages.send(caller: peer, request: SendMessageRequest(
                    recvID: message.conversationId, content: MessageService.json(["type": "flash_viewed", "msgId": message.clientMsgID]),
                    contentType: ContentType.custom, clientMsgId: "demo-viewed-" + message.clientMsgID))
                reply = "闪照看过了，已经销毁 🔥"
            default: reply = "收到你的" + MessageKinds.summary(of: m, localizer: Localizer(language: .zhHans))
            }
            if reply.count > 200 { reply = String(reply.prefix(200)) + "…" }
            _ = try? service.messages.send(caller: peer, request: SendMessageRequest(
                recvID: message.conversationId, content: reply, contentType: ContentType.text,
                clientMsgId: "demo-reply-\(peer)-" + message.clientMsgID))
        }
    }
}

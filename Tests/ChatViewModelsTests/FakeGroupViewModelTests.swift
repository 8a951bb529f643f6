import ChatCore
@testable import ChatStore
@testable import ChatSync
import ChatTesting
import Foundation
import Testing
@testable import ChatViewModels

// Group chats through the view models, against FakeChatAPI: no server.

@MainActor @Suite struct FakeGroupViewModelTests {
    @Test func aGroupIsMadeMentionsRaiseTheBadgeAndMuteKeepsItOutOfTheTotal() async throws {
        let fake = try FakeChatAPI(account: "groupme", username: "我")
        let ann = try fake.addPeer("ann", username: "Ann")
        let bob = try fake.addPeer("bob", username: "Bob")
        let me = try fakeSession(fake)
        let list = ConversationListViewModel(session: me, localizer: Localizer(language: .zhHans))
        await list.onAppear()

        let created = await list.createGroup(name: "周末爬山", uniqueName: "hike", memberIds: [ann.uid, bob.uid])
        let id = try #require(created, "\(list.errorMessage ?? "")")
        let row = try #require(list.conversations.first { $0.id == id })
        #expect(row.nickname == "周末爬山")
        #expect(row.unreadCount == 0, "the created notice is not unread")
        #expect(fake.peer(ann.uid).summary(of: id)?.memberCount == 3)
        // Creating it again, as a member: it is opened, not refused (seed 001 §8.2).
        fake.resetCallCounts()
        #expect(await list.createGroup(name: "周末爬山", uniqueName: "hike") == id, "\(list.errorMessage ?? "")")
        #expect(list.errorMessage == nil)

        // Ann mentions me, Bob just talks: two unread, one of them a mention.
        let mention = MentionPayload(text: "@我 周六见", atUserIDs: [fake.imUid])
        _ = try await fake.peer(ann.uid).api.send(SendMessageRequest(recvID: id, content: mention.jsonText,
                                                                  contentType: ContentType.mention, clientMsgId: "m1"))
        try fake.peerSends(from: bob.uid, text: "带水", inGroup: id)
        try await me.sync.pull()
        #expect(await settle(list) { list.conversations.first { $0.id == id }?.unreadCount == 2 })
        #expect(list.conversations.first { $0.id == id }?.hasUnreadMention == true)
        #expect(list.totalUnread == 2)

        // Muted: still counted on its row, no longer in the title's total.
        await list.muteConversation(id: id, isMuted: true)
        #expect(list.conversations.first { $0.id == id }?.isMuted == true)
        #expect(list.totalUnread == 0)
        #expect(fake.summary(of: id)?.isMuted == true, "the server keeps it per user")

        // Opening reads both, and the mention with them.
        let chat = ConversationViewModel(conversation: try #require(try me.store.conversation(id: id)), session: me,
                                         localizer: Localizer(language: .zhHans))
        await chat.onAppear()
        #expect(chat.messages.compactMap(\.text).prefix(2) == ["带水", "@我 周六见"])
        #expect(chat.messages.last { $0.type != .time }?.type == .groupNotice, "the oldest is the created notice")
        #expect(await settle { fake.summary(of: id).map { $0.unreadCount == 0 && $0.mentionSeq <= $0.readSeq } == true })
        await chat.onDisappear(draft: nil)
    }

    @Test func theOwnerKicksAndLeavesAndTheEarliestMemberTakesOver() async throws {
        let fake = try FakeChatAPI(account: "ownerme")
        let ann = try fake.addPeer("ann2", username: "Ann")
        let bob = try fake.addPeer("bob2", username: "Bob")
        let me = try fakeSession(fake)
        let list = ConversationListViewModel(session: me, localizer: Localizer(language: .zhHans))
        await list.onAppear()
        let id = try #require(await list.createGroup(name: "小组", uniqueName: "team2", memberIds: [ann.uid, bob.uid]))

        let chat = ConversationViewModel(conversation: try #require(try me.store.conversation(id: id)), session: me,
                                         localizer: Localizer(language: .zhHans))
        await chat.onAppear()
        await chat.refreshMembers()
        #expect(chat.isOwner)
        #expect(chat.members.map(\.username).sorted() == ["Ann", "Bob", "ownerme"])

        // Kicked: Bob keeps his history up to the notice and can no longer send.
        await chat.kick(uid: bob.uid)
        #expect(chat.errorMessage == nil)
        let bobView = fake.peer(bob.uid)
        #expect(bobView.summary(of: id)?.isMember == false)
        await #expect(throws: APIError.self) {
            _ = try await bobView.api.send(SendMessageRequest(recvID: id, content: "还在吗", contentType: ContentType.text,
                                                          clientMsgId: "late"))
        }
        #expect(try await bobView.api.history(conversationId: id).messages.last?.contentType == ContentType.memberKicked)
        await chat.onDisappear(draft: nil)

        // I leave: Ann, who joined first after me, owns it; my row stays, marked.
        await list.leaveGroup(id: id, delete: false)
        #expect(list.conversations.first { $0.id == id }?.isMember == false)
        let info = try await fake.peer(ann.uid).api.groupInfo(groupId: try #require(ConversationIDHelper.groupId(id)))
        #expect(info.ownerId == ConversationIDHelper.imUid(ann.uid))
        #expect(info.memberCount == 1)
        await #expect(throws: APIError.self) { _ = try await fake.api.groupInfo(groupId: info.groupId) }
    }
}

import ChatCore
import ChatStore
import Foundation

extension Session {
    /// Writes conversation `id` (called `title`) to `file`, or to standard
    /// output when nil: first its history is filled from the server (when
    /// `options.online`), then the store is read a page at a time, oldest
    /// first, and each message written as it is read. Pictures, voice and
    /// files go to `media/<conversation id>/` beside the file (never for
    /// standard output), from the media cache or else the server; a flash
    /// image never does. Messages the server has not acknowledged are not
    /// part of an export.
    ///
    /// The file appears whole or not at all: it is written beside itself
    /// and renamed over the old one at the end.
    public func export(_ id: String, title: String, to file: URL?, options: ExportOptions) async throws -> ExportResult {
        if ConversationIDHelper.isSecret(id) && !options.includeSecret { throw ExportError.secretChat(id) }
        var result = ExportResult()
        if options.online {
            do {
                try await fillHistory(id)
            } catch let e as APIError {
                // A chat the server no longer shows me (a group I left) still exports what this device has.
                result.fillFailure = e.description
            }
        }
        result.messagesMissing = try reader.missingRanges(conversationId: id).reduce(0) { $0 + $1.count }

        let output = try ExportOutput(file: file)
        do {
            let folder = ExportPaths.mediaFolder(conversationId: id)
            let saver = file.map { ExportMediaSaver(media: media, folder: $0.deletingLastPathComponent().appendingPathComponent(folder),
                                                    link: folder, online: options.online) }
            let writer = ExportWriter(format: options.format, title: title, conversationId: id, localizer: options.localizer,
                                      utcOffsetSeconds: options.utcOffsetSeconds)
            try output.write(writer.header())
            var names = ExportNames(session: self, conversationId: id, title: title)
            var after = 0
            while true {
                try Task.checkCancellation()
                let page = try reader.page(conversationId: id, after: after, limit: options.pageSize).messages
                guard let last = page.last?.seq else { break }
                after = last
                let messages = page.map { $0.chatMessage(myImUid: credentials.imUid) }
                try names.learn(messages)
                for m in messages {
                    guard let made = ExportRecord.from(m, people: names.people, localizer: options.localizer) else { continue }
                    var record = made.record
                    for (i, object) in made.objects.enumerated() {
                        if let saver, options.saveMedia {
                            record.media[i].path = await saver.save(object)
                            if record.media[i].path == nil { result.mediaMissing += 1 } else { result.mediaSaved += 1 }
                        } else {
                            result.mediaNotSaved += 1
                        }
                    }
                    let text = try writer.entry(record)
                    try output.write(text)
                    result.messages += 1
                }
            }
            try output.write(writer.footer())
            try output.finish()
        } catch {
            output.abandon()
            throw error
        }
        return result
    }

    /// Every conversation of the list into `directory`, one file each
    /// (``ExportPaths/fileName(title:conversationId:format:)``), their media
    /// under `directory/media/`. Secret chats only with
    /// `options.includeSecret`; the others are listed as skipped. `each`
    /// hears of every conversation as it is done.
    @discardableResult
    public func exportAll(into directory: URL, options: ExportOptions,
                          each: (ExportedConversation) -> Void = { _ in }) async throws -> [ExportedConversation] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var done: [ExportedConversation] = []
        for c in try reader.conversationList(localizer: options.localizer, useCache: false) {
            var item = ExportedConversation(conversationId: c.id, title: c.nickname, file: nil, result: nil)
            if !ConversationIDHelper.isSecret(c.id) || options.includeSecret {
                let file = directory.appendingPathComponent(ExportPaths.fileName(title: c.nickname, conversationId: c.id, format: options.format))
                item.result = try await export(c.id, title: c.nickname, to: file, options: options)
                item.file = file
            }
            each(item)
            done.append(item)
        }
        return done
    }
}

/// Names for an export's records, learnt a page at a time: me, a group's
/// members, and the profiles this device has cached (one read per page
/// for the ids it has not seen yet).
struct ExportNames {
    let session: Session
    var people: ExportPeople
    private var asked = Set<String>()

    init(session: Session, conversationId: String, title: String) {
        self.session = session
        let c = session.credentials
        people = ExportPeople(me: ExportRecord.Person(id: c.imUid, account: c.account, name: c.username))
        if let gid = ConversationIDHelper.groupId(conversationId) {
            for (id, name) in (try? session.reader.senderNames(groupId: gid)) ?? [:] {
                people.known[id] = ExportRecord.Person(id: id, name: name)
            }
        } else if !ConversationIDHelper.isRoom(conversationId) {
            // One to one: whoever is not me is the peer.
            people.fallbackName = title
        }
    }

    mutating func learn(_ messages: [ChatMessage]) throws {
        var ids = Set<String>()
        for m in messages {
            ids.insert(m.senderId)
            for e in m.reactions.entries { ids.formUnion(e.users) }
            if let q = m.content.quote?.quote.sendID { ids.insert(q) }
        }
        ids.subtract(asked)
        ids.remove(people.me.id)
        guard !ids.isEmpty else { return }
        asked.formUnion(ids)
        let uids = ids.compactMap(ConversationIDHelper.uid(fromImUid:))
        for (uid, p) in try session.reader.profiles(uids: uids) {
            let id = ConversationIDHelper.imUid(uid)
            people.known[id] = ExportRecord.Person(id: id, account: p.account, name: people.known[id]?.name ?? p.username)
        }
    }
}

/// Saves the media of one conversation's export into its folder: the
/// cached copy, else the server's (until the server cannot be reached).
/// A file already there (an earlier export) is kept: a message's media
/// never change.
final class ExportMediaSaver {
    let media: MediaCacheService
    let folder: URL
    let link: String
    private var online: Bool
    private var folderMade = false

    init(media: MediaCacheService, folder: URL, link: String, online: Bool) {
        self.media = media; self.folder = folder; self.link = link; self.online = online
    }

    /// The path of the saved file relative to the export, nil when it could not be had.
    func save(_ object: ExportMediaObject) async -> String? {
        let target = folder.appendingPathComponent(object.fileName)
        let path = link + "/" + object.fileName
        if FileManager.default.fileExists(atPath: target.path) { return path }
        var data = media.localURL(for: object.objectKey).flatMap { try? Data(contentsOf: $0) }
        if data == nil && online {
            do {
                data = try await media.fetchUncached(objectKey: object.objectKey)
            } catch let e as APIError where !e.isPermanent {
                online = false  // one timeout, not one per picture
            } catch {
                // Gone from the server, or refused: listed without a link.
            }
        }
        guard let data else { return nil }
        do {
            if !folderMade {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                folderMade = true
            }
            let out = try ExportOutput(file: target)
            do {
                try out.write(data)
                try out.finish()
            } catch {
                out.abandon()
                throw error
            }
            return path
        } catch {
            return nil
        }
    }
}

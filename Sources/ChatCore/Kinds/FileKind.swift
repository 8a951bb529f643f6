extension ChatMessageType {
    public static let file = ChatMessageType(rawValue: "file")
}

/// `file` (PROTOCOL.md v2): any file. `name` is what the sender called it;
/// it came over the network, so it touches the disk only through
/// `SafeFileName.base`.
public struct FilePayload: KindPayload, Codable {
    public static let messageType = ChatMessageType.file
    public var objectKey: String
    public var url: String
    public var expireAt: Int
    public var name: String
    public var size: Int
    public var mime: String
    public init(objectKey: String, url: String = "", expireAt: Int = 0, name: String, size: Int,
                mime: String = "application/octet-stream") {
        self.objectKey = objectKey; self.url = url; self.expireAt = expireAt
        self.name = name; self.size = size; self.mime = mime
    }
    public var storedObject: StoredObject? { StoredObject(key: objectKey, url: url, expireAt: expireAt) }
}

extension MessageContent {
    public static func file(_ p: FilePayload) -> MessageContent { MessageContent(p) }
    public var file: FilePayload? { payload(as: FilePayload.self) }
}

extension MessageKind {
    /// `file`: objectKey, name and size (required), url, expireAt, mime.
    /// Summary `[文件] name`. The name is checked as the protocol says (a
    /// base name, no NUL, at most 255 bytes); a client still never uses it on
    /// disk except through `SafeFileName.base`.
    public static let file = MessageKind(
        customType: "file", messageType: .file,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey"), let name = obj.nonEmpty("name"), SafeFileName.isProtocolName(name),
                  let size = obj.int("size"), size >= 0 else { return nil }
            return .file(FilePayload(objectKey: key, url: obj.string("url") ?? "", expireAt: obj.int("expireAt") ?? 0,
                                              name: name, size: size, mime: obj.nonEmpty("mime") ?? "application/octet-stream"))
        },
        encode: { content in
            guard let p = content.file else { return nil }
            return ["objectKey": .string(p.objectKey), "url": .string(p.url), "expireAt": .number(Double(p.expireAt)),
                    "name": .string(p.name), "size": .number(Double(p.size)), "mime": .string(p.mime)]
        },
        summary: { m, l in
            let name = m.content.file?.name ?? ""
            // One line: a name may hold U+2028/2029, which the sanitiser leaves alone.
            return l.string("summary.file", ["name": MessageKind.flattenLines(TerminalSanitizer.sanitize(name))])
        },
        objectKeys: { content in content.file.map { [$0.objectKey] } ?? [] },
        attachment: { content in
            content.file.map {
                Attachment(object: StoredObject(key: $0.objectKey, url: $0.url, expireAt: $0.expireAt), name: $0.name, size: $0.size)
            }
        },
        primaryAction: { _ in .save },
        canOpenExternally: true,
        // Found by its name.
        searchText: { content in content.file?.name ?? "" }
    )
}

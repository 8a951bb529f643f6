extension MessageKind {
    /// `file` (PROTOCOL.md v2): objectKey, name and size (required), url,
    /// expireAt, mime. Summary `[文件] name`. The name is checked as the
    /// protocol says (a base name, no NUL, at most 255 bytes); a client still
    /// never uses it on disk except through `SafeFileName.base`.
    public static let file = MessageKind(
        customType: "file", messageType: .file,
        decode: { obj in
            guard let key = obj.nonEmpty("objectKey"), let name = obj.nonEmpty("name"), SafeFileName.isProtocolName(name),
                  let size = obj.int("size"), size >= 0 else { return nil }
            return .file(FilePayload(objectKey: key, url: obj.string("url") ?? "", expireAt: obj.int("expireAt") ?? 0,
                                     name: name, size: size, mime: obj.nonEmpty("mime") ?? "application/octet-stream"))
        },
        encode: { content in
            guard case .file(let p) = content else { return nil }
            return ["objectKey": .string(p.objectKey), "url": .string(p.url), "expireAt": .number(Double(p.expireAt)),
                    "name": .string(p.name), "size": .number(Double(p.size)), "mime": .string(p.mime)]
        },
        summary: { m, l in
            guard case .file(let p) = m.content else { return l.string("summary.file", ["name": ""]) }
            // One line: a name may hold U+2028/2029, which the sanitiser leaves alone.
            return l.string("summary.file", ["name": MessageKind.flattenLines(TerminalSanitizer.sanitize(p.name))])
        },
        objectKeys: { content in if case .file(let p) = content { [p.objectKey] } else { [] } },
        primaryAction: { _ in .save },
        canOpenExternally: true
    )
}

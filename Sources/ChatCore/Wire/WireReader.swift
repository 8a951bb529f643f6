import Foundation

extension SyncResponse {
    /// A `/chat/sync` page: read directly where it has the shape the server
    /// writes (`JSONText`), else by the Codable conformance; the same value
    /// either way, and the conformance's error when it does not read.
    public static func decode(_ data: Data) throws -> SyncResponse {
        if let page = WireReader.page(data) { return page }
        return try JSONDecoder().decode(SyncResponse.self, from: data)
    }
}

extension PushFrame {
    /// A WebSocket text frame, read as `SyncResponse.decode` reads a page;
    /// nil for what the Codable conformance does not read either.
    public static func decode(_ text: String) -> PushFrame? {
        if let frame = WireReader.frame(text) { return frame }
        return try? JSONDecoder().decode(PushFrame.self, from: Data(text.utf8))
    }
}

/// Reads what the client reads on every pull and notice (a sync page's
/// message events, a `sync` notice, a room's message) without a decoder's
/// boxing: in a flood Foundation's JSONDecoder took a sixth of the
/// client's CPU (BENCHMARKS.md, "The flood's pages, read directly"). It
/// reads only what it can read exactly as the Codable conformances do and
/// leaves the rest to them: an event of another kind, or a message with a
/// key, an escape, a number or a null it does not take, is decoded alone
/// by JSONDecoder (skipped if that fails, as `SyncResponse` skips it); a
/// page or frame it cannot follow at all gives nil, and the caller decodes
/// it whole. Tests and the Sync fuzzer check it against the Codable decoding.
enum WireReader {
    static func page(_ data: Data) -> SyncResponse? { pageCounting(data)?.page }

    /// The page, and how many of its events were left to the decoder.
    static func pageCounting(_ data: Data) -> (page: SyncResponse, leftToDecoder: Int)? {
        // The decoder refuses text that is not UTF-8; nothing here reads it.
        guard var text = String(validating: data, as: UTF8.self) else { return nil }
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.page().map { ($0, reader.leftToDecoder) }
        }
    }

    /// `hello`, `sync`, `room` and `room_update` frames; nil for the rest.
    static func frame(_ text: String) -> PushFrame? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.frame()
        }
    }

    /// Built on `JSONSyntax.Parser`: its position, blanks, literals and
    /// the values this reader passes over are the parser's.
    struct Reader {
        private var p: JSONSyntax.Parser
        private var bytes: UnsafeBufferPointer<UInt8> { p.bytes }
        private(set) var i: Int {
            get { p.i }
            set { p.i = newValue }
        }
        /// For the events this reader leaves to the Codable conformance.
        private var decoder: JSONDecoder?
        private(set) var leftToDecoder = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { p = JSONSyntax.Parser(bytes: bytes) }

        mutating func page() -> SyncResponse? {
            var events: (list: [SyncEvent], skipped: Int)?
            var cursor: Int?
            var hasMore: Bool?
            let read = object { r, key in
                if r.matches(key, "events") { return r.once(&events) { $0.eventList() } }
                if r.matches(key, "cursor") { return r.once(&cursor) { $0.int() } }
                if r.matches(key, "hasMore") { return r.once(&hasMore) { $0.bool() } }
                // Keys the conformance does not read are passed over, as it does.
                return r.skipValue()
            }
            p.skipBlanks()
            guard read, i == bytes.count, let events, let cursor, let hasMore else { return nil }
            return SyncResponse(events: events.list, cursor: cursor, hasMore: hasMore, skippedEvents: events.skipped)
        }

        mutating func frame() -> PushFrame? {
            var type: Range<Int>?
            var cursor: Int?
            var message: WireMessage?
            let read = object { r, key in
                if r.matches(key, "type") { return r.once(&type) { $0.plainString() } }
                if r.matches(key, "cursor") { return r.once(&cursor) { $0.int() } }
                if r.matches(key, "message") { return r.once(&message) { $0.wireMessage() } }
                return false
            }
            p.skipBlanks()
            guard read, i == bytes.count, let type else { return nil }
            // A key another type does not read is left to the decoder, which passes over it.
            switch (cursor, message) {
            case (let cursor?, nil) where matches(type, "sync"): return .sync(cursor: cursor)
            case (let cursor?, nil) where matches(type, "hello"): return .hello(cursor: cursor)
            case (nil, let m?) where matches(type, "room"): return .room(m)
            case (nil, let m?) where matches(type, "room_update"): return .roomUpdate(m)
            default: return nil
            }
        }

        private mutating func eventList() -> (list: [SyncEvent], skipped: Int)? {
            guard take(0x5B) else { return nil }
            var list: [SyncEvent] = []
            var skipped = 0
            p.skipBlanks()
            if take(0x5D) { return (list, 0) }
            repeat {
                p.skipBlanks()
                let start = i
                if let event = messageEvent() {
                    list.append(event)
                } else {
                    i = start
                    guard skipValue() else { return nil }
                    let json = Data(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                    if decoder == nil { decoder = JSONDecoder() }
                    leftToDecoder += 1
                    if let event = try? decoder?.decode(SyncEvent.self, from: json) { list.append(event) } else { skipped += 1 }
                }
                p.skipBlanks()
            } while take(0x2C)
            guard take(0x5D) else { return nil }
            return (list, skipped)
        }

        private mutating func messageEvent() -> SyncEvent? {
            var kind: Range<Int>?
            var message: WireMessage?
            let read = object { r, key in
                if r.matches(key, "kind") { return r.once(&kind) { $0.plainString() } }
                if r.matches(key, "message") { return r.once(&message) { $0.wireMessage() } }
                return false
            }
            guard read, let kind, let message else { return nil }
            if matches(kind, "message") { return .message(message) }
            if matches(kind, "message_update") { return .messageUpdate(message) }
            return nil
        }

        private mutating func wireMessage() -> WireMessage? {
            var serverMsgID, clientMsgID, conversationId, sendID, recvID, content: String?
            var seq, contentType, sendTime, editedAt: Int?
            var revoked, flashViewed, deletedForMe, expired: Bool?
            let read = object { r, key in
                // In the order the server writes them; a key read twice is left to the decoder.
                if r.matches(key, "serverMsgID") { return r.once(&serverMsgID) { $0.string() } }
                if r.matches(key, "clientMsgID") { return r.once(&clientMsgID) { $0.string() } }
                if r.matches(key, "conversationId") { return r.once(&conversationId) { $0.string() } }
                if r.matches(key, "seq") { return r.once(&seq) { $0.int() } }
                if r.matches(key, "sendID") { return r.once(&sendID) { $0.string() } }
                if r.matches(key, "recvID") { return r.once(&recvID) { $0.string() } }
                if r.matches(key, "contentType") { return r.once(&contentType) { $0.int() } }
                if r.matches(key, "content") { return r.once(&content) { $0.string() } }
                if r.matches(key, "sendTime") { return r.once(&sendTime) { $0.int() } }
                if r.matches(key, "revoked") { return r.once(&revoked) { $0.bool() } }
                if r.matches(key, "flashViewed") { return r.once(&flashViewed) { $0.bool() } }
                if r.matches(key, "editedAt") { return r.once(&editedAt) { $0.int() } }
                if r.matches(key, "deletedForMe") { return r.once(&deletedForMe) { $0.bool() } }
                if r.matches(key, "expired") { return r.once(&expired) { $0.bool() } }
                // Reactions, and keys of a newer server.
                return false
            }
            guard read, let serverMsgID, let clientMsgID, let conversationId, let seq, let sendID, let recvID,
                  let contentType, let content, let sendTime, let revoked, let flashViewed,
                  (0...WireRange.max).contains(seq) else { return nil }
            var m = WireMessage(serverMsgID: serverMsgID, clientMsgID: clientMsgID, conversationId: conversationId, seq: seq,
                                sendID: sendID, recvID: recvID, contentType: contentType, content: content,
                                sendTime: WireRange.clamp(sendTime), revoked: revoked, flashViewed: flashViewed,
                                editedAt: editedAt.map(WireRange.clamp))
            m.deletedForMe = deletedForMe == true ? true : nil
            m.expired = expired == true ? true : nil
            return m
        }

        // MARK: - Tokens

        /// `{"key": value, …}`: `member` reads each value (the reader is at
        /// it) and says whether it could.
        private mutating func object(_ member: (inout Reader, Range<Int>) -> Bool) -> Bool {
            guard openObject() else { return false }
            if take(0x7D) { return true }
            repeat {
                guard let key = self.member(), member(&self, key) else { return false }
                p.skipBlanks()
            } while take(0x2C)
            return take(0x7D)
        }

        /// A member's value into `slot`, once: a second one is the decoder's to read.
        private mutating func once<T>(_ slot: inout T?, _ read: (inout Reader) -> T?) -> Bool {
            guard slot == nil, let value = read(&self) else { return false }
            slot = value
            return true
        }

        private mutating func take(_ c: UInt8) -> Bool {
            guard p.peek == c else { return false }
            i += 1
            return true
        }

        private mutating func openObject() -> Bool {
            p.skipBlanks()
            guard take(0x7B) else { return false }
            p.skipBlanks()
            return true
        }

        /// `"key":` with the blanks around it; the key's bytes.
        private mutating func member() -> Range<Int>? {
            p.skipBlanks()
            guard let key = plainString() else { return nil }
            p.skipBlanks()
            guard take(0x3A) else { return nil }
            p.skipBlanks()
            return key
        }

        private func matches(_ range: Range<Int>, _ word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount else { return false }
            return memcmp(bytes.baseAddress! + range.lowerBound, word.utf8Start, range.count) == 0
        }

        /// A string with no escape in it, as the range of its bytes.
        private mutating func plainString() -> Range<Int>? {
            guard take(0x22) else { return nil }
            let start = i
            while i < bytes.count {
                switch bytes[i] {
                case 0x22: i += 1; return start..<(i - 1)
                case 0x5C, 0x00..<0x20: return nil
                default: i += 1
                }
            }
            return nil
        }

        private mutating func string() -> String? {
            guard take(0x22) else { return nil }
            let start = i
            while i < bytes.count {
                switch bytes[i] {
                case 0x22:
                    i += 1
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(i - 1)]), as: UTF8.self)
                case 0x5C: return escapedString(from: start)
                case 0x00..<0x20: return nil
                default: i += 1
                }
            }
            return nil
        }

        /// The rest of a string from its first backslash (at `i`).
        private mutating func escapedString(from start: Int) -> String? {
            var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<i]))
            while i < bytes.count {
                let c = bytes[i]
                i += 1
                switch c {
                case 0x22: return String(decoding: out, as: UTF8.self)
                case 0x00..<0x20: return nil
                case 0x5C:
                    guard let e = p.peek else { return nil }
                    i += 1
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        // Surrogates (pairs or not) are the decoder's to read.
                        guard let v = hex4(), let scalar = Unicode.Scalar(v) else { return nil }
                        out.append(contentsOf: UTF8.encode(scalar)!)
                    default: return nil
                    }
                default: out.append(c)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - i >= 4 else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x41...0x46: digit = c - 0x41 + 10
                case 0x61...0x66: digit = c - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(digit)
                i += 1
            }
            return v
        }

        /// An integer as JSON writes one, up to 18 digits; a fraction or an
        /// exponent is the decoder's to read.
        private mutating func int() -> Int? {
            let negative = take(0x2D)
            guard let first = p.peek, first >= 0x30, first <= 0x39 else { return nil }
            var v = 0
            if first == 0x30 {
                i += 1
            } else {
                let start = i
                while let c = p.peek, c >= 0x30, c <= 0x39 {
                    guard i - start < 18 else { return nil }
                    v = v * 10 + Int(c - 0x30)
                    i += 1
                }
            }
            if let c = p.peek, c == 0x2E || c == 0x65 || c == 0x45 || (c >= 0x30 && c <= 0x39) { return nil }
            return negative ? -v : v
        }

        private mutating func bool() -> Bool? {
            if p.literal("true") { return true }
            if p.literal("false") { return false }
            return nil
        }

        private mutating func skipValue() -> Bool { p.value(depth: 0) }
    }
}

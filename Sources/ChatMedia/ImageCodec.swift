import CVips
import ChatCore
import Foundation

/// Pixels ready for the terminal: 8-bit RGB, row by row.
public struct RGBImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width; self.height = height; self.pixels = pixels
    }

    public func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

/// Images through libvips: JPEG, PNG, GIF (first frame), WebP.
public enum ImageCodec {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        public var kind: Kind

        /// What went wrong, for the user's words and for whether to try again.
        public enum Kind: Sendable, Equatable {
            /// Not a picture, or a damaged one.
            case unreadable
            /// The decoder took too long and was stopped.
            case timeout
            /// The decoder could not be started.
            case unavailable
            /// The decoder crashed or answered nonsense.
            case crashed
        }

        /// Worth trying again later, as opposed to a picture that cannot be decoded.
        public var transient: Bool { kind == .timeout || kind == .unavailable }

        public init(description: String, kind: Kind = .unreadable) {
            self.description = description
            self.kind = kind
        }
    }

    static func lastError(_ what: String) -> Failure {
        var buf = [CChar](repeating: 0, count: 512)
        tb_vips_error(&buf, buf.count)
        let detail = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: "\n").first.map(String.init) ?? ""
        return Failure(description: detail.isEmpty ? what : "\(what): \(detail)")
    }

    /// Decodes, shrinking to fit `maxWidth`×`maxHeight` pixels (0 = no limit).
    /// Only JPEG, PNG, GIF and WebP are parsed (checked by their magic
    /// numbers here, and libvips' other loaders are blocked in CVips).
    public static func decode(_ data: Data, maxWidth: Int = 0, maxHeight: Int = 0) throws -> RGBImage {
        guard !data.isEmpty else { throw Failure(description: "empty image") }
        guard MediaProbe.probe(data)?.kind == "chat_image" else { throw Failure(description: "not a JPEG, PNG, GIF or WebP picture") }
        return try vipsDecode(data, maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// libvips' decoder without the magic-number check (its loaders for
    /// other formats are blocked on their own).
    static func vipsDecode(_ data: Data, maxWidth: Int, maxHeight: Int) throws -> RGBImage {
        var out = tb_rgb()
        let r = data.withUnsafeBytes { raw in
            tb_vips_decode_rgb(raw.baseAddress, raw.count, Int32(maxWidth), Int32(maxHeight), &out)
        }
        guard r == 0, let p = out.pixels else { throw lastError("not a readable image") }
        defer { tb_vips_free(p) }
        let count = Int(out.width) * Int(out.height) * 3
        return RGBImage(width: Int(out.width), height: Int(out.height), pixels: Array(UnsafeBufferPointer(start: p, count: count)))
    }

    public static func size(_ data: Data) throws -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        let r = data.withUnsafeBytes { raw in tb_vips_size(raw.baseAddress, raw.count, &w, &h) }
        guard r == 0 else { throw lastError("not a readable image") }
        return (Int(w), Int(h))
    }

    /// JPEG at `quality` (1-100), longest side shrunk to `maxSide` (0 = keep).
    public static func jpeg(_ data: Data, quality: Int, maxSide: Int = 0) throws -> (data: Data, width: Int, height: Int) {
        var out: UnsafeMutableRawPointer?
        var len = 0
        var w: Int32 = 0, h: Int32 = 0
        let r = data.withUnsafeBytes { raw in
            tb_vips_jpeg(raw.baseAddress, raw.count, Int32(maxSide), Int32(quality), &out, &len, &w, &h)
        }
        guard r == 0, let out else { throw lastError("cannot encode JPEG") }
        defer { tb_vips_free(out) }
        return (Data(bytes: out, count: len), Int(w), Int(h))
    }

    /// Re-encodes into the format of `suffix` (".png", ".webp", ".gif", ".jpg").
    public static func convert(_ data: Data, to suffix: String) throws -> Data {
        var out: UnsafeMutableRawPointer?
        var len = 0
        let r = data.withUnsafeBytes { raw in tb_vips_convert(raw.baseAddress, raw.count, suffix, &out, &len) }
        guard r == 0, let out else { throw lastError("cannot encode \(suffix)") }
        defer { tb_vips_free(out) }
        return Data(bytes: out, count: len)
    }

    /// What an image upload becomes (seed §六 `compressImage`): files up to
    /// `limit` go as they are; larger ones are re-encoded as JPEG from
    /// quality 0.8 down to 0.1, then shrunk until they fit. Aspect ratio kept.
    public struct Prepared: Sendable, Equatable {
        public var data: Data
        public var contentType: String
        public var width: Int
        public var height: Int
    }

    public static let uploadLimit = 200 * 1024

    /// Reads a local file (checked: exists, regular, at most 20 MiB, an
    /// image by its bytes) and prepares it for upload.
    public static func prepareFile(path: String) throws -> Prepared {
        let probe = try MediaProbe.probe(path: path)
        guard probe.kind == "chat_image" else { throw MediaProbe.Failure.unsupported(path) }
        guard let data = FileManager.default.contents(atPath: path) else { throw MediaProbe.Failure.unreadable(path) }
        return try prepareForUpload(data)
    }

    /// Whether a JPEG has an APP1 `Exif` segment before its image data.
    static func hasEXIF(_ data: Data) -> Bool {
        let b = [UInt8](data.prefix(256 * 1024))
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return false }
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xDA || marker == 0xD9 { return false }  // image data / end
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return false }
            if marker == 0xE1, i + 10 <= b.count, Array(b[(i + 4)..<(i + 10)]) == Array("Exif\0\0".utf8) { return true }
            i += 2 + length
        }
        return false
    }

    public static func prepareForUpload(_ data: Data, limit: Int = uploadLimit) throws -> Prepared {
        guard let probe = MediaProbe.probe(data), probe.kind == "chat_image" else {
            throw Failure(description: "not a JPEG, PNG, GIF or WebP image")
        }
        let size = try self.size(data)
        if data.count <= limit {
            // A small photo goes as it is, unless it carries EXIF (camera,
            // GPS position): then it is re-encoded without its metadata.
            if probe.contentType == "image/jpeg", hasEXIF(data), let clean = try? jpeg(data, quality: 92), clean.data.count <= limit {
                return Prepared(data: clean.data, contentType: "image/jpeg", width: clean.width, height: clean.height)
            }
            if !(probe.contentType == "image/jpeg" && hasEXIF(data)) {
                return Prepared(data: data, contentType: probe.contentType, width: size.width, height: size.height)
            }
        }
        var quality = 80
        var best = try jpeg(data, quality: quality)
        while best.data.count > limit && quality > 10 {
            quality -= 10
            best = try jpeg(data, quality: quality)
        }
        var side = max(best.width, best.height)
        while best.data.count > limit && side > 16 {
            side = side * 3 / 4
            best = try jpeg(data, quality: 70, maxSide: side)
        }
        guard best.data.count <= limit else { throw Failure(description: "cannot make the image small enough") }
        return Prepared(data: best.data, contentType: "image/jpeg", width: best.width, height: best.height)
    }
}

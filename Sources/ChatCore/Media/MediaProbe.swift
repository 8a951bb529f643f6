import Foundation

/// What a local file is, read from its bytes (never from its name): the
/// upload Content-Type, the upload kind, and the size or duration the
/// message payload carries.
public struct MediaProbe: Sendable, Equatable {
    public var contentType: String
    /// `chat_image` or `chat_audio`.
    public var kind: String
    public var width: Int?
    public var height: Int?
    public var durationSec: Int?

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case unsupported(String)
        case tooLarge(String, Int)
        public var description: String {
            switch self {
            case .unreadable(let p): "cannot read \(p)"
            case .unsupported(let p): "\(p) is not a JPEG, PNG, GIF, WebP, WAV, MP3, OGG or M4A file"
            case .tooLarge(let p, let limit): "\(p) is larger than \(limit / 1_048_576) MiB"
            }
        }
    }

    public static let maxBytes = 20 * 1024 * 1024

    public static func probe(path: String) throws -> MediaProbe {
        guard let attrs = try? FileManager.default.attributesOfItem(atPath: path), (attrs[.type] as? FileAttributeType) == .typeRegular
        else { throw Failure.unreadable(path) }
        if let size = attrs[.size] as? Int, size > maxBytes { throw Failure.tooLarge(path, maxBytes) }
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure.unreadable(path) }
        guard let p = probe(data) else { throw Failure.unsupported(path) }
        return p
    }

    public static func probe(_ data: Data) -> MediaProbe? {
        let b = [UInt8](data.prefix(64 * 1024))
        func at(_ o: Int, _ sig: [UInt8]) -> Bool { b.count >= o + sig.count && Array(b[o..<o + sig.count]) == sig }
        func be16(_ o: Int) -> Int { b.count > o + 1 ? Int(b[o]) << 8 | Int(b[o + 1]) : 0 }
        func be32(_ o: Int) -> Int { be16(o) << 16 | be16(o + 2) }
        func le16(_ o: Int) -> Int { b.count > o + 1 ? Int(b[o]) | Int(b[o + 1]) << 8 : 0 }
        func le32(_ o: Int) -> Int { le16(o) | le16(o + 2) << 16 }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return MediaProbe(contentType: "image/png", kind: "chat_image", width: be32(16), height: be32(20))
        }
        if at(0, Array("GIF87a".utf8)) || at(0, Array("GIF89a".utf8)) {
            return MediaProbe(contentType: "image/gif", kind: "chat_image", width: le16(6), height: le16(8))
        }
        if at(0, [0xFF, 0xD8, 0xFF]) {
            // Walk the segments to the first start-of-frame.
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { i += 1; continue }
                let marker = b[i + 1]
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return MediaProbe(contentType: "image/jpeg", kind: "chat_image", width: be16(i + 7), height: be16(i + 5))
                }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                i += 2 + be16(i + 2)
            }
            return MediaProbe(contentType: "image/jpeg", kind: "chat_image")
        }
        if at(0, Array("RIFF".utf8)) && at(8, Array("WEBP".utf8)) {
            var w: Int?, h: Int?
            if at(12, Array("VP8X".utf8)), b.count > 29 {
                w = (Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16) + 1
                h = (Int(b[27]) | Int(b[28]) << 8 | Int(b[29]) << 16) + 1
            } else if at(12, Array("VP8 ".utf8)), b.count > 30 {
                w = le16(26) & 0x3FFF; h = le16(28) & 0x3FFF
            } else if at(12, Array("VP8L".utf8)), b.count > 25 {
                let bits = le32(21)
                w = (bits & 0x3FFF) + 1; h = ((bits >> 14) & 0x3FFF) + 1
            }
            return MediaProbe(contentType: "image/webp", kind: "chat_image", width: w, height: h)
        }
        if at(0, Array("RIFF".utf8)) && at(8, Array("WAVE".utf8)) {
            // Find fmt and data chunks.
            var i = 12, byteRate = 0, dataSize = 0
            while i + 8 <= b.count {
                let id = String(decoding: b[i..<i + 4], as: UTF8.self), size = le32(i + 4)
                if id == "fmt " { byteRate = le32(i + 16) }
                if id == "data" { dataSize = size; break }
                i += 8 + size + (size & 1)
            }
            if dataSize == 0 || dataSize > data.count { dataSize = max(0, data.count - 44) }
            let secs = byteRate > 0 ? Int((Double(dataSize) / Double(byteRate)).rounded()) : nil
            return MediaProbe(contentType: "audio/wav", kind: "chat_audio", durationSec: secs)
        }
        if at(0, Array("OggS".utf8)) {
            return MediaProbe(contentType: "audio/ogg", kind: "chat_audio", durationSec: AudioDuration.ogg([UInt8](data)))
        }
        if at(4, Array("ftyp".utf8)) {
            return MediaProbe(contentType: "audio/mp4", kind: "chat_audio", durationSec: AudioDuration.mp4([UInt8](data)))
        }
        if at(0, Array("ID3".utf8)) || (b.count > 1 && b[0] == 0xFF && (b[1] & 0xE0) == 0xE0) {
            return MediaProbe(contentType: "audio/mpeg", kind: "chat_audio", durationSec: AudioDuration.mp3([UInt8](data)))
        }
        return nil
    }
}

/// Voice durations read from the file's own headers, rounded to seconds.
enum AudioDuration {
    static func be(_ b: [UInt8], _ o: Int, _ n: Int) -> Int {
        guard o >= 0, o + n <= b.count else { return 0 }
        return b[o..<o + n].reduce(0) { $0 << 8 | Int($1) }
    }

    static func le(_ b: [UInt8], _ o: Int, _ n: Int) -> Int {
        guard o >= 0, o + n <= b.count else { return 0 }
        return b[o..<o + n].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    static func find(_ b: [UInt8], _ pattern: [UInt8], from: Int = 0, backwards: Bool = false) -> Int? {
        guard b.count >= pattern.count else { return nil }
        let range = Array(from...(b.count - pattern.count))
        for i in backwards ? range.reversed() : range where b[i] == pattern[0] && Array(b[i..<i + pattern.count]) == pattern {
            return i
        }
        return nil
    }

    /// Ogg Vorbis or Opus: the last page's granule position over the rate.
    static func ogg(_ b: [UInt8]) -> Int? {
        guard let last = find(b, Array("OggS".utf8), backwards: true) else { return nil }
        let granule = le(b, last + 6, 8)
        if let v = find(b, [0x01] + Array("vorbis".utf8)) {
            let rate = le(b, v + 12, 4)
            return rate > 0 ? seconds(Double(granule) / Double(rate)) : nil
        }
        if let o = find(b, Array("OpusHead".utf8)) {
            let preSkip = le(b, o + 10, 2)
            let (samples, overflow) = granule.subtractingReportingOverflow(preSkip)
            return overflow ? nil : seconds(Double(max(0, samples)) / 48000)
        }
        return nil
    }

    /// MP4/M4A: `mvhd` duration over its timescale.
    static func mp4(_ b: [UInt8]) -> Int? {
        guard let m = find(b, Array("mvhd".utf8)) else { return nil }
        let version = b.count > m + 4 ? b[m + 4] : 0
        let (scale, duration) = version == 1 ? (be(b, m + 24, 4), be(b, m + 28, 8)) : (be(b, m + 16, 4), be(b, m + 20, 4))
        return scale > 0 ? seconds(Double(duration) / Double(scale)) : nil
    }

    /// A duration read from a header: nil unless it is a plausible number of seconds.
    static func seconds(_ s: Double) -> Int? {
        s.isFinite && s >= 0 && s < 1e9 ? Int(s.rounded()) : nil
    }

    /// MP3: frames from a Xing/Info header, else the constant bit rate.
    static func mp3(_ b: [UInt8]) -> Int? {
        var i = 0
        if b.count > 10, Array(b[0..<3]) == Array("ID3".utf8) {
            i = 10 + (Int(b[6] & 0x7F) << 21 | Int(b[7] & 0x7F) << 14 | Int(b[8] & 0x7F) << 7 | Int(b[9] & 0x7F))
        }
        while i + 4 <= b.count && !(b[i] == 0xFF && (b[i + 1] & 0xE0) == 0xE0) { i += 1 }
        guard i + 4 <= b.count else { return nil }
        let version = (b[i + 1] >> 3) & 3   // 3 = MPEG1, 2 = MPEG2, 0 = MPEG2.5
        let layer = (b[i + 1] >> 1) & 3     // 1 = Layer III
        let bitrateIndex = Int(b[i + 2] >> 4), rateIndex = Int((b[i + 2] >> 2) & 3)
        guard layer == 1, bitrateIndex > 0, bitrateIndex < 15, rateIndex < 3 else { return nil }
        let mpeg1 = version == 3
        let rates = mpeg1 ? [44100, 48000, 32000] : version == 2 ? [22050, 24000, 16000] : [11025, 12000, 8000]
        let bitrates = mpeg1 ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
                             : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        let sampleRate = rates[rateIndex]
        let samplesPerFrame = mpeg1 ? 1152 : 576
        for tag in ["Xing", "Info"] {
            if let x = find(Array(b[i..<min(b.count, i + 200)]), Array(tag.utf8)), be(b, i + x + 4, 4) & 1 == 1 {
                let frames = be(b, i + x + 8, 4)
                return Int((Double(frames * samplesPerFrame) / Double(sampleRate)).rounded())
            }
        }
        let bitrate = bitrates[bitrateIndex] * 1000
        return Int((Double(b.count - i) * 8 / Double(bitrate)).rounded())
    }
}

import Foundation

/// Any JSON value, decoded without losing the difference between `true` and 1.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let d):
            if d.rounded() == d, abs(d) < 9.0e15 { try c.encode(Int64(d)) } else { try c.encode(d) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

/// A JSON object with lenient, type-checked accessors, for custom payloads
/// whose producers (other clients, older versions) may send numbers as
/// strings or floats.
public struct JSONObject: Sendable, Hashable {
    public let fields: [String: JSONValue]

    public init(fields: [String: JSONValue]) { self.fields = fields }

    /// Parses `jsonText`; nil unless it is a JSON object.
    public init?(jsonText: String) {
        guard let data = jsonText.data(using: .utf8),
              case .object(let dict)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        fields = dict
    }

    public func string(_ key: String) -> String? {
        if case .string(let s)? = fields[key] { return s }
        return nil
    }

    /// A string that is not empty.
    public func nonEmpty(_ key: String) -> String? {
        guard let s = string(key), !s.isEmpty else { return nil }
        return s
    }

    public func int(_ key: String) -> Int? {
        switch fields[key] {
        case .number(let d)?:
            guard d.isFinite, d.rounded() == d, abs(d) < 9.0e15 else { return nil }
            return Int(d)
        case .string(let s)?:
            // The bound numbers have: a value read must be written back as itself.
            guard let v = Int(s.trimmingCharacters(in: .whitespaces)), v.magnitude < 9_000_000_000_000_000 else { return nil }
            return v
        default: return nil
        }
    }

    public func double(_ key: String) -> Double? {
        switch fields[key] {
        case .number(let d)?: return d.isFinite ? d : nil
        case .string(let s)?:
            guard let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite else { return nil }
            return d
        default: return nil
        }
    }

    /// A picture's width or height: finite, 0...65,535 pixels; anything
    /// else (1e300, negative) is treated as absent.
    public func dimension(_ key: String) -> Double? {
        guard let d = double(key), d >= 0, d <= 65_535 else { return nil }
        return d
    }

    public func stringArray(_ key: String) -> [String]? {
        guard case .array(let arr)? = fields[key] else { return nil }
        var out: [String] = []
        out.reserveCapacity(arr.count)
        for item in arr {
            guard case .string(let s) = item else { return nil }
            out.append(s)
        }
        return out
    }

    /// Compact JSON text with sorted keys.
    public func jsonText() -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? enc.encode(JSONValue.object(fields)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

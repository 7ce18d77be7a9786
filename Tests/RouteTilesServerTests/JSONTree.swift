import Foundation

/// A JSON value as parsed, with its type kept exactly (a boolean is never a number, an integer is told from a
/// fraction), for checks against a schema.
package indirect enum JSONTree: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONTree].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONTree].self))
        }
    }

    /// Parses `bytes`; nil when they are not JSON.
    package static func parse(_ bytes: [UInt8]) -> JSONTree? {
        try? JSONDecoder().decode(JSONTree.self, from: Data(bytes))
    }

    package subscript(key: String) -> JSONTree? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    package var string: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    package var double: Double? {
        switch self {
        case let .integer(i): return Double(i)
        case let .number(d): return d
        default: return nil
        }
    }

    package var description: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return "\(b)"
        case let .integer(i): return "\(i)"
        case let .number(d): return "\(d)"
        case let .string(s): return "\"\(s)\""
        case let .array(a): return "[\(a.map(\.description).joined(separator: ","))]"
        case let .object(o):
            return "{\(o.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ","))}"
        }
    }
}

import Foundation

/// A JSON value read whole, for documents whose members vary in type by who wrote them (tileset metadata: a
/// number in one file is a string in another), and read member by member.
package enum JSONDocument: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONDocument])
    case object([String: JSONDocument])

    /// The value of `bytes`, or nil when they are not JSON.
    package static func parse(_ bytes: some Sequence<UInt8>) -> JSONDocument? {
        try? JSONDecoder().decode(JSONDocument.self, from: Data(bytes))
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONDocument].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONDocument].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    package var string: String? { if case let .string(value) = self { value } else { nil } }
    package var number: Double? { if case let .number(value) = self { value } else { nil } }
    package var array: [JSONDocument]? { if case let .array(value) = self { value } else { nil } }
    package var object: [String: JSONDocument]? { if case let .object(value) = self { value } else { nil } }

    /// The member `key` of an object; nil for other values.
    package subscript(key: String) -> JSONDocument? { object?[key] }
}

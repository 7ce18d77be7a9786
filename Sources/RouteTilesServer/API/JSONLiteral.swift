/// A JSON value written as a Swift literal, for a document whose shape belongs to another format and that the
/// server writes but never reads: the MapLibre style of `/style.json` (layers, paint properties, expressions).
/// Objects keep their members in the order written; `JSONBody` sorts them.
enum JSONLiteral: Encodable, Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case array([JSONLiteral])
    case object([Member])

    struct Member: Sendable, Equatable {
        var key: String
        var value: JSONLiteral
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case let .string(value): try Self.encode(single: value, to: encoder)
        case let .integer(value): try Self.encode(single: value, to: encoder)
        case let .number(value): try Self.encode(single: value, to: encoder)
        case let .bool(value): try Self.encode(single: value, to: encoder)
        case let .array(values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case let .object(members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(member.key)) }
        }
    }

    private static func encode(single value: some Encodable, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension JSONLiteral: ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSONLiteral...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSONLiteral)...) {
        self = .object(elements.map { Member(key: $0.0, value: $0.1) })
    }
}

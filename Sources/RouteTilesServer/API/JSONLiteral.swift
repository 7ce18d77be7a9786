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

    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case let .string(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .integer(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .number(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .bool(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .array(values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case let .object(members):
            var container = encoder.container(keyedBy: MemberName.self)
            for member in members { try container.encode(member.value, forKey: MemberName(stringValue: member.key)) }
        }
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

import RouteTiles

/// A route property's value as JSON: a string, a number or a boolean, as read.
struct PropertyJSON: Encodable, Sendable {
    var value: PropertyValue

    init(_ value: PropertyValue) {
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case let .string(s): try container.encode(s)
        case let .double(d): try container.encode(d)
        case let .int(i): try container.encode(i)
        case let .uint(u): try container.encode(u)
        case let .bool(b): try container.encode(b)
        }
    }
}

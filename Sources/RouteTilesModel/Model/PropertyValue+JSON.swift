/// A property's value as JSON: a string, a number or a boolean, as read; a number that is not finite (which JSON
/// cannot hold) as its text.
extension PropertyValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(s): try container.encode(s)
        case let .int(i): try container.encode(i)
        case let .uint(u): try container.encode(u)
        case let .double(d): d.isFinite ? try container.encode(d) : try container.encode(String(d))
        case let .bool(b): try container.encode(b)
        }
    }
}

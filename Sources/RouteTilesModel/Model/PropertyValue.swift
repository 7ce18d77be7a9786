/// A route attribute value as it is stored in a vector tile.
///
/// Nested JSON values (objects, arrays) arrive here already serialised as `.string`; JSON nulls never arrive.
public enum PropertyValue: Hashable, Sendable {
    /// Text.
    case string(String)
    /// Any integer that fits in 64 signed bits. The encoder writes it as `uint_value` when it is not negative,
    /// `sint_value` when it is.
    case int(Int64)
    /// Integers above `Int64.max`.
    case uint(UInt64)
    /// A number with a fractional part, or too large for 64-bit integers.
    case double(Double)
    /// True or false.
    case bool(Bool)

    /// The type name that tippecanoe's `vector_layers` uses for this value: `String`, `Number` or `Boolean`.
    public var fieldType: String {
        switch self {
        case .string: return "String"
        case .int, .uint, .double: return "Number"
        case .bool: return "Boolean"
        }
    }
}

/// One named attribute of a route. Routes keep their properties in input order so that output is deterministic.
public struct Property: Hashable, Sendable {
    /// The property's name.
    public var key: String
    /// The property's value.
    public var value: PropertyValue

    /// A property named `key` with `value`.
    public init(_ key: String, _ value: PropertyValue) {
        self.key = key
        self.value = value
    }
}

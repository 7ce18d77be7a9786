/// A property value in the form a `Tile.Value` message stores it, compared by exact typed value.
///
/// Two property values share a table entry exactly when they would be written as the same bytes: `.int(5)` and
/// `.uint(5)` both become `uint_value` 5, but `.double(1)` (`double_value`) and `.int(1)` stay apart, and doubles
/// compare by bit pattern (so -0.0 and 0.0 differ, and a NaN matches the same NaN).
enum TileValue: Hashable, Sendable {
    case string(ExactString)
    case double(bitPattern: UInt64)
    case uint(UInt64)
    case sint(Int64)
    case bool(Bool)

    init(_ value: PropertyValue) {
        switch value {
        case let .string(string): self = .string(ExactString(string))
        case let .int(number): self = number >= 0 ? .uint(UInt64(number)) : .sint(number)
        case let .uint(number): self = .uint(number)
        case let .double(number): self = .double(bitPattern: number.bitPattern)
        case let .bool(flag): self = .bool(flag)
        }
    }

    /// Writes the body of the `Value` message: one field.
    func write(into writer: inout ProtobufWriter) {
        typealias Field = VectorTileSchema.Value
        switch self {
        case let .string(string): writer.writeStringField(Field.string, string.string)
        case let .double(bits):
            writer.writeTag(field: Field.double, wireType: .fixed64)
            writer.writeFixed64(bits)
        case let .uint(number): writer.writeVarintField(Field.uint, number)
        case let .sint(number): writer.writeVarintField(Field.sint, ProtobufWriter.zigZag(number))
        case let .bool(flag): writer.writeVarintField(Field.bool, flag ? 1 : 0)
        }
    }
}

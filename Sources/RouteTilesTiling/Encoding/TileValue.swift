import RouteTilesModel

/// A property value in the form a `Tile.Value` message stores it, compared by exact typed value.
///
/// Two property values share a table entry exactly when they would be written as the same bytes: `.int(5)` and
/// `.uint(5)` both become `uint_value` 5, but `.double(1)` (`double_value`) and `.int(1)` stay apart, and doubles
/// compare by bit pattern (so -0.0 and 0.0 differ, and a NaN matches the same NaN).
enum TileValue: Hashable, IndexTableKey, Sendable {
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

    var tableHash: UInt64 {
        switch self {
        case let .string(string): return string.tableHash
        case let .double(bits): return Self.mix(bits, kind: 1)
        case let .uint(number): return Self.mix(number, kind: 2)
        case let .sint(number): return Self.mix(UInt64(bitPattern: number), kind: 3)
        case let .bool(flag): return Self.mix(flag ? 1 : 0, kind: 4)
        }
    }

    /// Scrambles a number with its kind so that equal payloads of different kinds rarely collide.
    @inline(__always)
    private static func mix(_ value: UInt64, kind: UInt64) -> UInt64 {
        var hash = value ^ (kind &* 0xD6E8_FEB8_6659_FD93)
        hash = (hash ^ (hash >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return hash ^ (hash >> 32)
    }

    /// The size of the `Value` message body that `write(into:)` writes: a one-byte key and the field's value.
    var encodedSize: Int {
        switch self {
        case let .string(string):
            let length = string.string.utf8.count
            return 1 + ProtobufWriter.varintSize(UInt64(length)) + length
        case .double: return 1 + 8
        case let .uint(number): return 1 + ProtobufWriter.varintSize(number)
        case let .sint(number): return 1 + ProtobufWriter.varintSize(ProtobufWriter.zigZag(number))
        case .bool: return 1 + 1
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

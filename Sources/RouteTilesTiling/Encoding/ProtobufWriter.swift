/// Appends protobuf wire-format data (varints, zigzag integers, tags, length-delimited fields) to a byte buffer.
///
/// Nothing here allocates except the buffer growing; reserve capacity up front where the size is known.
struct ProtobufWriter: Sendable {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }
    var isEmpty: Bool { bytes.isEmpty }

    // MARK: Scalars

    /// Writes `value` as a base-128 varint: 7 bits a byte, least significant group first, high bit set on all but
    /// the last byte.
    @inline(__always)
    mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    @inline(__always)
    mutating func writeVarint(_ value: UInt32) {
        writeVarint(UInt64(value))
    }

    /// Writes the 8 bytes of `value` little-endian (`fixed64`, `double`).
    mutating func writeFixed64(_ value: UInt64) {
        var rest = value
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    mutating func writeBytes<C: Collection>(_ other: C) where C.Element == UInt8 {
        bytes.append(contentsOf: other)
    }

    mutating func append(_ other: ProtobufWriter) {
        bytes.append(contentsOf: other.bytes)
    }

    // MARK: Fields

    /// Writes a field key: `(field << 3) | wireType`.
    @inline(__always)
    mutating func writeTag(field: UInt32, wireType: ProtobufWireType) {
        writeVarint((UInt64(field) << 3) | UInt64(wireType.rawValue))
    }

    mutating func writeVarintField(_ field: UInt32, _ value: UInt64) {
        writeTag(field: field, wireType: .varint)
        writeVarint(value)
    }

    /// Writes a length-delimited field holding `contents` as they are.
    mutating func writeLengthDelimitedField<C: Collection>(_ field: UInt32, _ contents: C) where C.Element == UInt8 {
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(contents.count))
        bytes.append(contentsOf: contents)
    }

    /// Writes a string field as its UTF-8 bytes.
    mutating func writeStringField(_ field: UInt32, _ string: String) {
        writeLengthDelimitedField(field, string.utf8)
    }

    /// Writes a length-delimited field holding another writer's bytes (a nested message or a packed array).
    mutating func writeLengthDelimitedField(_ field: UInt32, _ contents: ProtobufWriter) {
        writeLengthDelimitedField(field, contents.bytes)
    }

    // MARK: Sizes and encodings

    /// `(n << 1) ^ (n >> 63)`: small magnitudes of either sign become small unsigned numbers.
    @inline(__always)
    static func zigZag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value &<< 1) ^ (value >> 63))
    }

    /// The 32-bit zigzag encoding used for geometry parameters.
    @inline(__always)
    static func zigZag(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value &<< 1) ^ (value >> 31))
    }

    /// The number of bytes `writeVarint(value)` writes.
    static func varintSize(_ value: UInt64) -> Int {
        // One byte per started group of 7 significant bits; zero still takes one byte.
        let significantBits = 64 - (value | 1).leadingZeroBitCount
        return (significantBits + 6) / 7
    }

    /// The number of bytes of a length-delimited field with `length` bytes of contents.
    static func lengthDelimitedFieldSize(field: UInt32, length: Int) -> Int {
        varintSize(UInt64(field) << 3) + varintSize(UInt64(length)) + length
    }
}

/// Writes varints into a buffer sized beforehand (callers allow 5 bytes per 32-bit varint), without the uniqueness
/// and capacity checks of appending to an array byte by byte. Running out of room never writes past the buffer: it
/// sets `overflowed`, and the caller gives up.
struct VarintBufferWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    private(set) var overflowed = false

    init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    @inline(__always)
    mutating func writeVarint(_ value: UInt32) {
        var rest = value
        while true {
            guard count < buffer.count else {
                overflowed = true
                return
            }
            if rest < 0x80 {
                buffer[count] = UInt8(truncatingIfNeeded: rest)
                count += 1
                return
            }
            buffer[count] = UInt8(truncatingIfNeeded: rest) | 0x80
            count += 1
            rest >>= 7
        }
    }
}

/// Reads protobuf wire-format data from a range of a byte array, checking every length against what is left.
///
/// Sub-readers for nested messages share the array, so `position` is always an offset in the whole input; every
/// failure is a `VectorTileDecodingError` naming that offset.
struct ProtobufReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        position = 0
        end = bytes.count
    }

    /// A reader over `range`, which must lie within `bytes`.
    init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }
    var remaining: Int { end - position }

    func error(_ message: String, at offset: Int? = nil) -> VectorTileDecodingError {
        VectorTileDecodingError(offset: offset ?? position, message: message)
    }

    /// A base-128 varint of at most 10 bytes whose value fits 64 bits.
    mutating func readVarint() throws -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw error("truncated varint", at: start) }
            let byte = bytes[position]
            position += 1
            // The tenth byte holds bit 63 only: anything more (including a continuation bit, which would make
            // the varint longer than 10 bytes) overflows.
            if shift == 63, byte > 1 { throw error("varint does not fit in 64 bits", at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A varint that must fit 32 bits (`uint32` and enum fields, packed tags and geometry).
    mutating func readVarint32(_ what: @autoclosure () -> String) throws -> UInt32 {
        let start = position
        let value = try readVarint()
        guard let narrow = UInt32(exactly: value) else {
            throw error("\(what()) \(value) does not fit in 32 bits", at: start)
        }
        return narrow
    }

    /// A field key: its field number and wire type. Groups and the undefined wire types 6 and 7 are refused.
    mutating func readTag() throws -> (field: UInt32, wireType: ProtobufWireType) {
        let start = position
        let key = try readVarint()
        let field = key >> 3
        guard field >= 1, field < (1 << 29) else {
            throw error("invalid field number \(field)", at: start)
        }
        let rawWireType = UInt8(truncatingIfNeeded: key & 0x7)
        guard let wireType = ProtobufWireType(rawValue: rawWireType) else {
            let name = rawWireType == 3 || rawWireType == 4 ? " (groups are not supported)" : ""
            throw error("field \(field) has unsupported wire type \(rawWireType)\(name)", at: start)
        }
        return (UInt32(truncatingIfNeeded: field), wireType)
    }

    /// The byte range of a length-delimited field's contents; the reader moves past them.
    mutating func readLengthDelimited() throws -> Range<Int> {
        let start = position
        let length = try readVarint()
        guard length <= UInt64(remaining) else {
            throw error("length \(length) runs past the end of its message (\(remaining) bytes left)", at: start)
        }
        let contentStart = position
        position += Int(length)
        return contentStart..<position
    }

    mutating func readFixed64() throws -> UInt64 {
        try readLittleEndian(byteCount: 8)
    }

    mutating func readFixed32() throws -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(byteCount: 4))
    }

    private mutating func readLittleEndian(byteCount: Int) throws -> UInt64 {
        guard remaining >= byteCount else {
            throw error("truncated \(byteCount * 8)-bit fixed-size value (\(remaining) bytes left)")
        }
        var value: UInt64 = 0
        for index in 0..<byteCount {
            value |= UInt64(bytes[position + index]) << (8 * UInt64(index))
        }
        position += byteCount
        return value
    }

    /// Moves past the value of a field of `wireType`.
    mutating func skip(_ wireType: ProtobufWireType) throws {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: _ = try readLengthDelimited()
        }
    }

    /// Fails unless a known field came with the wire type the schema gives it.
    func expect(_ wireType: ProtobufWireType, for field: UInt32, named name: String, got actual: ProtobufWireType)
        throws {
        guard actual == wireType else {
            throw error("field \(field) (\(name)) has wire type \(actual.rawValue), expected \(wireType.rawValue)")
        }
    }

    /// A UTF-8 string from a byte range of the input.
    func string(in range: Range<Int>, _ what: String) throws -> String {
        guard let string = String(validating: bytes[range], as: UTF8.self) else {
            throw error("\(what) is not valid UTF-8", at: range.lowerBound)
        }
        return string
    }

    /// Appends the 32-bit values of a repeated `uint32` field: a packed run when length-delimited, one value when a
    /// varint.
    mutating func readRepeatedUInt32(_ wireType: ProtobufWireType, into values: inout [UInt32], _ what: String) throws {
        switch wireType {
        case .varint:
            values.append(try readVarint32(what))
        case .lengthDelimited:
            var packed = ProtobufReader(bytes, range: try readLengthDelimited())
            while !packed.isAtEnd {
                values.append(try packed.readVarint32(what))
            }
        case .fixed32, .fixed64:
            throw error("\(what) has wire type \(wireType.rawValue), expected 0 or 2")
        }
    }
}

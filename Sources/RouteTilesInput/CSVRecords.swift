import Foundation
import RouteTilesModel

/// Splits CSV text (RFC 4180) into records of fields.
///
/// Fields are separated by commas, records by CRLF, LF or a lone CR; the last record may lack a line break. A field
/// in double quotes may hold commas, line breaks and doubled quotes (`""` for `"`). A quote inside an unquoted field
/// is kept as it is. A leading UTF-8 byte order mark is skipped. Fields are byte ranges into the buffer; only the
/// fields a reader asks for become strings.
struct CSVRecordScanner {
    /// One field: its bytes, without the surrounding quotes.
    struct Field {
        var range: Range<Int>
        var isQuoted: Bool
        /// Holds `""` pairs that stand for one quote each.
        var hasDoubledQuotes: Bool
    }

    /// One record: the line it starts on and its fields.
    struct Record {
        var line: Int
        var fields: [Field] = []

        /// A record with nothing but spaces and tabs in it, treated as a blank line.
        func isBlank(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard fields.count == 1, !fields[0].isQuoted else { return false }
            return bytes[fields[0].range].allSatisfy { $0 == 0x20 || $0 == 0x09 }
        }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let file: String
    private var offset: Int
    /// The 1-based line of `offset`.
    private var line = 1

    init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
        self.bytes = bytes
        self.file = file
        let hasByteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        offset = hasByteOrderMark ? 3 : 0
    }

    /// Reads the next record into `record` (reusing its storage) and returns true, or returns false at the end of
    /// the text. Throws for an unterminated quoted field or text after a closing quote.
    mutating func next(into record: inout Record) throws(InputError) -> Bool {
        guard offset < bytes.count else { return false }
        record.line = line
        record.fields.removeAll(keepingCapacity: true)
        while true {
            let field = try readField(number: record.fields.count + 1)
            record.fields.append(field)
            guard offset < bytes.count else { return true }
            switch bytes[offset] {
            case UInt8(ascii: ","):
                offset += 1
            case UInt8(ascii: "\r"):
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "\n") { offset += 1 }
                line += 1
                return true
            default: // "\n"; readField stops at nothing else
                offset += 1
                line += 1
                return true
            }
        }
    }

    /// Reads one field, leaving `offset` at the delimiter or line break after it (or at the end).
    private mutating func readField(number: Int) throws(InputError) -> Field {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            let start = offset
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
                offset += 1
            }
            return Field(range: start..<offset, isQuoted: false, hasDoubledQuotes: false)
        }
        let startLine = line
        offset += 1
        let start = offset
        var hasDoubledQuotes = false
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "\""):
                if offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "\"") {
                    hasDoubledQuotes = true
                    offset += 2
                    continue
                }
                let end = offset
                offset += 1
                if offset < bytes.count {
                    let next = bytes[offset]
                    guard next == UInt8(ascii: ",") || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r") else {
                        throw InputError(file: file, location: .line(line, column: number),
                                         message: "unexpected text after the closing quote of field \(number)")
                    }
                }
                return Field(range: start..<end, isQuoted: true, hasDoubledQuotes: hasDoubledQuotes)
            case UInt8(ascii: "\n"):
                line += 1
                offset += 1
            case UInt8(ascii: "\r"):
                if offset + 1 >= bytes.count || bytes[offset + 1] != UInt8(ascii: "\n") { line += 1 }
                offset += 1
            default:
                offset += 1
            }
        }
        throw InputError(file: file, location: .line(startLine, column: number),
                         message: "unterminated quoted field \(number): no closing '\"'")
    }

    /// The bytes of a field without the spaces and tabs around it, read in place; nil when the field has doubled
    /// quotes (its text is not its bytes).
    func trimmedBytes(of field: Field) -> UnsafeBufferPointer<UInt8>? {
        guard !field.hasDoubledQuotes else { return nil }
        var lower = field.range.lowerBound, upper = field.range.upperBound
        while lower < upper && (bytes[lower] == 0x20 || bytes[lower] == 0x09) { lower += 1 }
        while upper > lower && (bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09) { upper -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lower..<upper])
    }

    /// Whether two fields hold the same bytes.
    func sameBytes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        guard let base = bytes.baseAddress, a.count > 0 else { return true }
        return memcmp(base + a.lowerBound, base + b.lowerBound, a.count) == 0
    }

    /// The text of a field, with doubled quotes undone. Invalid UTF-8 becomes U+FFFD.
    func text(of field: Field) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[field.range])
        guard field.hasDoubledQuotes else { return String(decoding: raw, as: UTF8.self) }
        var unquoted: [UInt8] = []
        unquoted.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            unquoted.append(raw[index])
            index += raw[index] == UInt8(ascii: "\"") ? 2 : 1
        }
        return String(decoding: unquoted, as: UTF8.self)
    }
}

/// A pull parser for JSON text (RFC 8259) over a byte buffer.
///
/// It is hand-written rather than built on `JSONSerialization` or `JSONDecoder` for three reasons:
/// - errors must name the exact line and column; the scanner keeps only a byte offset and the line and column are
///   derived from it when an error is reported (`JSONSyntaxError`);
/// - route files hold multi-megabyte coordinate arrays, which must go straight into `Coordinate`s without a tree of
///   boxed values (`readNestedCoordinates()`);
/// - the reader is meant to become a streaming one that pulls one feature at a time.
///
/// The caller drives it: `peekKind()` says what comes next; `enterObject()`/`nextKey(in:)` and
/// `enterArray()`/`nextElement(in:)` walk containers; `readString()`, `readDouble()`, `readNumber()`, `readBool()` and
/// `readNull()` take scalars; `skipValue()` and `readValue()` take whatever is there; `finish()` checks that nothing
/// but whitespace follows the top-level value.
///
/// It is strict: whatever RFC 8259 does not allow is a `JSONSyntaxError`, including invalid UTF-8 or lone surrogates
/// in strings, numbers that overflow a `Double`, and nesting deeper than `maximumDepth`. The one leniency is a leading
/// UTF-8 byte order mark, which is skipped (RFC 8259 §8.1 lets parsers ignore it).
///
/// The scanner holds a pointer into the caller's buffer, so it must not outlive the `withUnsafeBufferPointer` call
/// that made it.
package struct JSONScanner {
    /// The deepest nesting of arrays and objects accepted; deeper input is an error rather than a stack overflow.
    static let maximumDepth = 512

    /// What kind of value starts at the current position.
    enum Kind: Equatable, Sendable {
        case object, array, string, number, bool, null

        /// The kind with an article, for messages: "found an array".
        var description: String {
            switch self {
            case .object: return "an object"
            case .array: return "an array"
            case .string: return "a string"
            case .number: return "a number"
            case .bool: return "a boolean"
            case .null: return "null"
            }
        }
    }

    /// The state of one array or object being walked: whether the next member is its first.
    struct Container {
        var isFirst = true
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// The byte offset of the next unread byte.
    var offset: Int
    /// How many arrays and objects are open.
    private(set) var depth = 0
    /// Scratch space for strings that hold escapes or non-ASCII text, kept to avoid allocating per string.
    var stringBuffer: [UInt8] = []

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        let hasByteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        offset = hasByteOrderMark ? 3 : 0
    }

    var isAtEnd: Bool { offset >= bytes.count }

    // MARK: Whitespace and errors

    /// Moves past spaces, tabs, line feeds and carriage returns, the only whitespace JSON has.
    @inline(__always)
    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? self.offset, message: message)
    }

    /// Names the byte at `offset` for a message: `'x'`, `end of input`, `a line break`, `byte 0xFF`.
    func found(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        switch byte {
        case 0x0A, 0x0D: return "a line break"
        case 0x09: return "a tab"
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default:
            if byte >= 0x80, let length = UTF8Validation.sequenceLength(in: bytes, at: offset) {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<(offset + length)]),
                                  as: UTF8.self)
                return "'\(text)'"
            }
            return "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    // MARK: Looking ahead

    /// Skips whitespace and says what kind of value starts next, without consuming it.
    mutating func peekKind() throws(JSONSyntaxError) -> Kind {
        skipWhitespace()
        guard offset < bytes.count else { throw error("expected a value, found end of input") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: throw error("expected a value, found \(found(offset))")
        }
    }

    // MARK: Containers

    private mutating func open() throws(JSONSyntaxError) {
        guard depth < Self.maximumDepth else {
            throw error("nesting deeper than \(Self.maximumDepth) arrays and objects")
        }
        depth += 1
        offset += 1
    }

    private mutating func close() {
        depth -= 1
        offset += 1
    }

    /// Consumes the `{` that opens an object.
    mutating func enterObject() throws(JSONSyntaxError) -> Container { try enter("{") }

    /// Consumes the `[` that opens an array.
    mutating func enterArray() throws(JSONSyntaxError) -> Container { try enter("[") }

    /// Consumes `bracket`, the character that opens an object or an array.
    @inline(__always)
    private mutating func enter(_ bracket: Unicode.Scalar) throws(JSONSyntaxError) -> Container {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: bracket) else {
            throw error("expected '\(bracket)', found \(found(offset))")
        }
        try open()
        return Container()
    }

    /// Moves to the opening quote of the next member's key and returns true, or consumes the closing `}` and
    /// returns false.
    private mutating func advanceToKey(in object: inout Container) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if object.isFirst {
            object.isFirst = false
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                close()
                return false
            }
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw error("expected a string key or '}', found \(found(offset))")
            }
            return true
        }
        guard offset < bytes.count else {
            throw error("expected ',' or '}' after object member, found end of input")
        }
        switch bytes[offset] {
        case UInt8(ascii: ","):
            offset += 1
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw error("expected a string key after ',', found \(found(offset))")
            }
            return true
        case UInt8(ascii: "}"):
            close()
            return false
        default:
            throw error("expected ',' or '}' after object member, found \(found(offset))")
        }
    }

    private mutating func consumeColon() throws(JSONSyntaxError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
            throw error("expected ':' after object key, found \(found(offset))")
        }
        offset += 1
    }

    /// Reads the key of the next member and the `:` after it, leaving the scanner at the member's value; returns nil
    /// (having consumed the `}`) when the object has no more members.
    mutating func nextKey(in object: inout Container) throws(JSONSyntaxError) -> String? {
        guard try advanceToKey(in: &object) else { return nil }
        let key = try readString()
        try consumeColon()
        return key
    }

    /// Like `nextKey(in:)` for an object whose keys do not matter: returns false at the end of the object.
    mutating func skipToNextValue(in object: inout Container) throws(JSONSyntaxError) -> Bool {
        guard try advanceToKey(in: &object) else { return false }
        try skipString()
        try consumeColon()
        return true
    }

    /// Returns true with the scanner at the next element (never at the end of input), or consumes the closing `]`
    /// and returns false.
    mutating func nextElement(in array: inout Container) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else {
            throw error(array.isFirst ? "expected a value or ']', found end of input"
                                      : "expected ',' or ']' after array element, found end of input")
        }
        if array.isFirst {
            array.isFirst = false
            if bytes[offset] == UInt8(ascii: "]") {
                close()
                return false
            }
            return true
        }
        switch bytes[offset] {
        case UInt8(ascii: ","):
            offset += 1
            skipWhitespace()
            guard offset < bytes.count else { throw error("expected a value after ',', found end of input") }
            return true
        case UInt8(ascii: "]"):
            close()
            return false
        default:
            throw error("expected ',' or ']' after array element, found \(found(offset))")
        }
    }

    // MARK: Literals

    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        let start = literal.utf8Start
        for index in 0..<count where bytes[offset + index] != start[index] {
            return false
        }
        offset += count
        return true
    }

    mutating func readBool() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "t") { throw error("invalid literal; expected 'true'") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "f") { throw error("invalid literal; expected 'false'") }
        throw error("expected 'true' or 'false', found \(found(offset))")
    }

    mutating func readNull() throws(JSONSyntaxError) {
        skipWhitespace()
        if consumeLiteral("null") { return }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "n") { throw error("invalid literal; expected 'null'") }
        throw error("expected 'null', found \(found(offset))")
    }

    // MARK: Whole values

    /// Reads past one value of any kind, checking its syntax but building nothing.
    mutating func skipValue() throws(JSONSyntaxError) {
        switch try peekKind() {
        case .object:
            var object = try enterObject()
            while try skipToNextValue(in: &object) {
                try skipValue()
            }
        case .array:
            var array = try enterArray()
            while try nextElement(in: &array) {
                try skipValue()
            }
        case .string: try skipString()
        case .number: _ = try readDouble()
        case .bool: _ = try readBool()
        case .null: try readNull()
        }
    }

    /// Checks that only whitespace follows the top-level value.
    package mutating func finish() throws(JSONSyntaxError) {
        skipWhitespace()
        guard offset >= bytes.count else {
            throw error("expected end of input after the JSON value, found \(found(offset))")
        }
    }
}

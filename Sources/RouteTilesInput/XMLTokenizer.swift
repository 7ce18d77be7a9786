/// A small pull tokenizer for the XML that GPX files use: start and end tags with attributes, text, and the
/// constructs it skips (declaration, processing instructions, comments, DOCTYPE). CDATA is text.
///
/// It walks the bytes once and allocates only for names, attribute values and text it returns. Entities `&lt;`
/// `&gt;` `&amp;` `&quot;` `&apos;` and character references are decoded; any other is an error. Errors carry the
/// 1-based line and byte column. Input must be UTF-8; names and text are checked as they are returned.
struct XMLTokenizer {
    enum Token: Equatable {
        /// A start tag; `selfClosing` for `<name/>`, which gets no end tag token.
        case start(name: String, attributes: [(String, String)], selfClosing: Bool)
        case end(name: String)
        case text(String)

        static func == (lhs: Token, rhs: Token) -> Bool {
            switch (lhs, rhs) {
            case let (.start(a, x, s), .start(b, y, t)):
                return a == b && s == t && x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
            case let (.end(a), .end(b)): return a == b
            case let (.text(a), .text(b)): return a == b
            default: return false
            }
        }
    }

    struct SyntaxError: Error, Equatable {
        var offset: Int
        var message: String
        /// Not an error of the text: the window ends inside the token that starts at `offset`, and more input
        /// is needed to read it (only when the window is not final).
        var needsMore = false
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// Whether `bytes` run to the end of the input. When not, a token that reaches the end of `bytes` may go on
    /// in the input's next bytes: `next()` then throws a `SyntaxError` with `needsMore` at the token's start.
    let isFinal: Bool
    private(set) var offset = 0
    /// Byte offset of the token last returned.
    private(set) var tokenOffset = 0

    /// A tokenizer over `bytes`, a window of the input when `isFinal` is false; a UTF-8 byte order mark at the
    /// start of the input (`atInputStart`) is skipped.
    init(bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool = true, atInputStart: Bool = true) {
        self.bytes = bytes
        self.isFinal = isFinal
        if atInputStart, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
    }

    /// The next token, or nil at the end of the input.
    mutating func next() throws(SyntaxError) -> Token? {
        guard !isFinal else { return try nextToken() }
        // In a window, a token (or an error) that reached the window's end may be cut short: read it again once
        // more input is there. A token that ends exactly at the end is read again too, which costs little.
        let token: Token?
        do {
            token = try nextToken()
        } catch {
            if offset >= bytes.count { throw SyntaxError(offset: tokenOffset, message: "", needsMore: true) }
            throw error
        }
        if offset >= bytes.count { throw SyntaxError(offset: token == nil ? offset : tokenOffset, message: "", needsMore: true) }
        return token
    }

    private mutating func nextToken() throws(SyntaxError) -> Token? {
        while offset < bytes.count {
            tokenOffset = offset
            guard bytes[offset] == UInt8(ascii: "<") else { return .text(try readText()) }
            if starts(with: "<!--") {
                try skip(past: "-->", what: "comment")
            } else if starts(with: "<![CDATA[") {
                let start = offset + 9
                try skip(past: "]]>", what: "CDATA section")
                return .text(try string(start..<(offset - 3)))
            } else if starts(with: "<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if starts(with: "<!") {
                try skipDeclaration()
            } else if starts(with: "</") {
                offset += 2
                let name = try readName()
                skipSpace()
                try expect(">")
                return .end(name: name)
            } else {
                offset += 1
                return try readStartTag()
            }
        }
        return nil
    }

    private func starts(with literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { literalBytes in
            (0..<count).allSatisfy { bytes[offset + $0] == literalBytes[$0] }
        }
    }

    private mutating func skip(past literal: StaticString, what: String) throws(SyntaxError) {
        let start = offset
        while offset < bytes.count {
            if starts(with: literal) {
                offset += literal.utf8CodeUnitCount
                return
            }
            offset += 1
        }
        throw SyntaxError(offset: start, message: "unterminated \(what)")
    }

    /// `<!DOCTYPE …>` with an optional internal subset in brackets.
    private mutating func skipDeclaration() throws(SyntaxError) {
        let start = offset
        var depth = 0
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where depth <= 0:
                offset += 1
                return
            default: break
            }
            offset += 1
        }
        throw SyntaxError(offset: start, message: "unterminated declaration")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"),
             UInt8(ascii: "."), 0x80...0xFF:
            return true
        default: return false
        }
    }

    private mutating func readName() throws(SyntaxError) -> String {
        let start = offset
        while offset < bytes.count, Self.isNameByte(bytes[offset]) { offset += 1 }
        guard offset > start else {
            throw SyntaxError(offset: start, message: offset < bytes.count
                ? "expected a name, found \(PolylineCodec.describe(bytes[offset]))" : "expected a name, found the end")
        }
        return try string(start..<offset)
    }

    private mutating func skipSpace() {
        while offset < bytes.count, InputFormat.isSpace(bytes[offset]) { offset += 1 }
    }

    private mutating func expect(_ character: Unicode.Scalar) throws(SyntaxError) {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: character) else {
            throw SyntaxError(offset: offset, message: offset < bytes.count
                ? "expected '\(character)', found \(PolylineCodec.describe(bytes[offset]))"
                : "expected '\(character)', found the end of the file")
        }
        offset += 1
    }

    private mutating func readStartTag() throws(SyntaxError) -> Token {
        let name = try readName()
        var attributes: [(String, String)] = []
        while true {
            skipSpace()
            guard offset < bytes.count else { throw SyntaxError(offset: offset, message: "unterminated tag <\(name)>") }
            if bytes[offset] == UInt8(ascii: "/") {
                offset += 1
                try expect(">")
                return .start(name: name, attributes: attributes, selfClosing: true)
            }
            if bytes[offset] == UInt8(ascii: ">") {
                offset += 1
                return .start(name: name, attributes: attributes, selfClosing: false)
            }
            let key = try readName()
            skipSpace()
            try expect("=")
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") || bytes[offset] == UInt8(ascii: "'")
            else { throw SyntaxError(offset: offset, message: "expected a quoted value for attribute '\(key)'") }
            let quote = bytes[offset]
            offset += 1
            let start = offset
            while offset < bytes.count, bytes[offset] != quote {
                if bytes[offset] == UInt8(ascii: "<") {
                    throw SyntaxError(offset: offset, message: "'<' inside the value of attribute '\(key)'")
                }
                offset += 1
            }
            guard offset < bytes.count else {
                throw SyntaxError(offset: start - 1, message: "unterminated value of attribute '\(key)'")
            }
            attributes.append((key, try decoded(start..<offset)))
            offset += 1
        }
    }

    private mutating func readText() throws(SyntaxError) -> String {
        let start = offset
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "<") { offset += 1 }
        return try decoded(start..<offset)
    }

    private func string(_ range: Range<Int>) throws(SyntaxError) -> String {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw SyntaxError(offset: range.lowerBound, message: "invalid UTF-8 (GPX must be UTF-8)")
        }
        return text
    }

    /// Text with its entity and character references decoded.
    private func decoded(_ range: Range<Int>) throws(SyntaxError) -> String {
        let raw = try string(range)
        guard raw.utf8.contains(UInt8(ascii: "&")) else { return raw }
        var result = ""
        var rest = Substring(raw)
        var position = range.lowerBound
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            position += rest.utf8.distance(from: rest.startIndex, to: ampersand)
            guard let semicolon = rest[ampersand...].firstIndex(of: ";"),
                  rest.distance(from: ampersand, to: semicolon) <= 10 else {
                throw SyntaxError(offset: position, message: "'&' that starts no entity (write &amp;)")
            }
            let entity = rest[rest.index(after: ampersand)..<semicolon]
            switch entity {
            case "lt": result += "<"
            case "gt": result += ">"
            case "amp": result += "&"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                var code: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    code = UInt32(entity.dropFirst(2), radix: 16)
                } else if entity.hasPrefix("#") {
                    code = UInt32(entity.dropFirst(), radix: 10)
                }
                guard let code, code != 0, let scalar = Unicode.Scalar(code) else {
                    throw SyntaxError(offset: position, message: "unknown entity '&\(entity);'")
                }
                result.unicodeScalars.append(scalar)
            }
            position += rest.utf8.distance(from: ampersand, to: rest.index(after: semicolon))
            rest = rest[rest.index(after: semicolon)...]
        }
        result += rest
        return result
    }
}

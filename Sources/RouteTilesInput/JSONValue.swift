/// A JSON value as parsed, for the places where the shape is open: feature properties and foreign members.
///
/// Objects keep their members in input order, duplicates included, so that re-serialising one gives back what was
/// written (`compactText`). Numbers keep their text, so that integers beyond 2^53 and ids keep every digit.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([Member])

    package struct Member: Equatable, Sendable {
        package var key: String
        package var value: JSONValue

        package init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }
}

/// A JSON number: its text as written and its correctly rounded value.
package struct JSONNumber: Equatable, Sendable {
    package var text: String
    package var value: Double
    /// Written without fraction or exponent.
    package var isInteger: Bool

    package init(text: String, value: Double, isInteger: Bool) {
        self.text = text
        self.value = value
        self.isInteger = isInteger
    }

    /// The value as an `Int64`, when it is written as an integer within range.
    var int64: Int64? { isInteger ? Int64(text) : nil }

    /// The value as a `UInt64`, when it is written as a non-negative integer within range (`-0` is not one).
    var nonNegativeInteger: UInt64? {
        guard isInteger, !text.hasPrefix("-") else { return nil }
        return UInt64(text)
    }
}

extension JSONScanner {
    /// Reads a whole value into a `JSONValue` tree.
    package mutating func readValue() throws(JSONSyntaxError) -> JSONValue {
        switch try peekKind() {
        case .object:
            var members: [JSONValue.Member] = []
            var object = try enterObject()
            while let key = try nextKey(in: &object) {
                members.append(JSONValue.Member(key: key, value: try readValue()))
            }
            return .object(members)
        case .array:
            var elements: [JSONValue] = []
            var array = try enterArray()
            while try nextElement(in: &array) {
                elements.append(try readValue())
            }
            return .array(elements)
        case .string: return .string(try readString())
        case .number: return .number(try readNumber())
        case .bool: return .bool(try readBool())
        case .null:
            try readNull()
            return .null
        }
    }
}

extension JSONValue {
    /// The kind of value with an article, for messages.
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value as compact JSON: no whitespace, members in input order, numbers as written, strings with only the
    /// escapes JSON requires.
    package var compactText: String {
        var output: [UInt8] = []
        appendCompact(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func appendCompact(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let number): output.append(contentsOf: number.text.utf8)
        case .string(let string): Self.appendQuoted(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.appendCompact(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.appendQuoted(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.appendCompact(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    package static func appendQuoted(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                let hex = String(byte, radix: 16, uppercase: true)
                output.append(contentsOf: ("\\u00" + (hex.count < 2 ? "0" : "") + hex).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

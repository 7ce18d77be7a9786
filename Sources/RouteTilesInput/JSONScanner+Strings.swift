/// JSON strings: escapes (RFC 8259 §7), `\uXXXX` with surrogate pairs, and UTF-8 validation of raw text.
extension JSONScanner {
    /// Reads a string at the current position (after whitespace).
    mutating func readString() throws(JSONSyntaxError) -> String {
        try scanString(collecting: true)
    }

    /// Reads past a string, checking it as `readString()` does, without building it.
    mutating func skipString() throws(JSONSyntaxError) {
        _ = try scanString(collecting: false)
    }

    /// The string starting at the current position. Plain ASCII runs without escapes, the common case for keys and
    /// many values, are turned into a `String` straight from the buffer; anything else goes through `stringBuffer`.
    private mutating func scanString(collecting: Bool) throws(JSONSyntaxError) -> String {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw error("expected a string, found \(found(offset))")
        }
        let opening = offset
        let start = offset + 1
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                offset = index + 1
                guard collecting else { return "" }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        stringBuffer.removeAll(keepingCapacity: true)
        if collecting {
            stringBuffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                offset = index + 1
                guard collecting else { return "" }
                return String(decoding: stringBuffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index = try scanEscape(at: index, collecting: collecting)
            case 0x00..<0x20:
                throw error("unescaped control character 0x" + String(byte, radix: 16, uppercase: true)
                                + " in string", at: index)
            case 0x80...:
                guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
                    throw error("invalid UTF-8 in string", at: index)
                }
                if collecting {
                    stringBuffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
                }
                index += length
            default:
                if collecting { stringBuffer.append(byte) }
                index += 1
            }
        }
        throw error("unterminated string", at: opening)
    }

    /// Decodes the escape at `index` (a backslash) into `stringBuffer`; returns the index after it.
    private mutating func scanEscape(at index: Int, collecting: Bool) throws(JSONSyntaxError) -> Int {
        guard index + 1 < bytes.count else { throw error("unterminated string", at: index) }
        let decoded: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            return try scanUnicodeEscape(at: index, collecting: collecting)
        default:
            throw error("invalid escape '\\' followed by \(found(index + 1)) in string", at: index)
        }
        if collecting { stringBuffer.append(decoded) }
        return index + 2
    }

    /// Decodes `\uXXXX`, or a surrogate pair `\uD8xx\uDCxx`, at `index`; returns the index after it.
    private mutating func scanUnicodeEscape(at index: Int, collecting: Bool) throws(JSONSyntaxError) -> Int {
        let unit = try hexCodeUnit(at: index)
        var scalarValue = UInt32(unit)
        var end = index + 6
        switch unit {
        case 0xD800...0xDBFF:
            guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"), bytes[end + 1] == UInt8(ascii: "u") else {
                throw error("lone surrogate \\u" + hex4(unit) + " in string (a high surrogate must be followed by a "
                                + "low one)", at: index)
            }
            let low = try hexCodeUnit(at: end)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error("lone surrogate \\u" + hex4(unit) + " in string (followed by \\u" + hex4(low)
                                + ", not a low surrogate)", at: index)
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw error("lone surrogate \\u" + hex4(unit) + " in string (a low surrogate without a high one)",
                        at: index)
        default:
            break
        }
        if collecting, let scalar = Unicode.Scalar(scalarValue) {
            stringBuffer.append(contentsOf: UTF8.encode(scalar) ?? UTF8.EncodedScalar())
        }
        return end
    }

    /// The four hex digits of the `\u` escape whose backslash is at `index`.
    private func hexCodeUnit(at index: Int) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for position in (index + 2)..<(index + 6) {
            guard position < bytes.count, let digit = hexDigitValue(bytes[position]) else {
                throw error("invalid \\u escape in string: expected four hex digits", at: index)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// Well-formed UTF-8 as Unicode's Table 3-7 defines it: no overlong forms, no encoded surrogates, nothing above
/// U+10FFFF, no truncated sequences.
enum UTF8Validation {
    /// The length of the well-formed sequence starting at `index`, or nil if there is none.
    static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        guard index < bytes.count else { return nil }
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: return nil
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return nil }
        for position in (index + 2)..<(index + length) where !(0x80...0xBF).contains(bytes[position]) {
            return nil
        }
        return length
    }
}

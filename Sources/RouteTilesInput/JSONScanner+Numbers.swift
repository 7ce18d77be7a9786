/// JSON numbers: the RFC 8259 §6 grammar, converted to correctly rounded `Double`s.
///
/// Simple decimals take an exact fast path: when the significant digits form an integer below 2^53 and the decimal
/// exponent is small enough that the power of ten is itself exact, one IEEE multiplication or division gives the
/// correctly rounded result. Everything else (long mantissas, large exponents) falls back to the standard library's
/// `Double(String)`, which rounds correctly. A result too large for a `Double` is ±infinity from `readDouble()`
/// (coordinates, range-checked by their readers) and an error from `readNumber()` ("number out of range").
extension JSONScanner {
    /// A number as scanned: its value, where its text lies, and whether it was written as an integer (no fraction,
    /// no exponent).
    struct ScannedNumber {
        var value: Double
        var start: Int
        var end: Int
        var isInteger: Bool
    }

    /// The powers of ten that a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Reads a number's value; one too large for a `Double` (`1e400`) is ±infinity, for the caller to judge
    /// (a coordinate is then out of range, which `--skip-invalid` can skip, rather than a syntax error).
    mutating func readDouble() throws(JSONSyntaxError) -> Double {
        try scanNumber().value
    }

    /// Reads a number with its text, for the places where the text matters (ids, integer properties). A number
    /// too large for a `Double` is an error here ("number out of range").
    mutating func readNumber() throws(JSONSyntaxError) -> JSONNumber {
        let number = try scanNumber()
        guard number.value.isFinite else { throw error("number out of range", at: number.start) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[number.start..<number.end]), as: UTF8.self)
        return JSONNumber(text: text, value: number.value, isInteger: number.isInteger)
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    mutating func scanNumber() throws(JSONSyntaxError) -> ScannedNumber {
        skipWhitespace()
        let start = offset
        var index = offset
        let count = bytes.count
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < count, Self.isDigit(bytes[index]) else {
            throw error(negative ? "invalid number: expected a digit after '-', found \(found(index))"
                                 : "expected a number, found \(found(index))", at: index)
        }

        // Up to 19 significant digits fit in a UInt64; further digits only mark the mantissa as truncated.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var truncated = false
        var exponent = 0

        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < count, Self.isDigit(bytes[index]) {
                throw error("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while index < count, Self.isDigit(bytes[index]) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                    significantDigits += 1
                } else {
                    truncated = true
                    exponent += 1
                }
                index += 1
            }
        }

        var isInteger = true
        if index < count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < count, Self.isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit after '.', found \(found(index))", at: index)
            }
            while index < count, Self.isDigit(bytes[index]) {
                let digit = bytes[index] &- UInt8(ascii: "0")
                if mantissa == 0 && digit == 0 {
                    exponent -= 1
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                    exponent -= 1
                } else {
                    truncated = true
                }
                index += 1
            }
        }

        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < count, Self.isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit in the exponent, found \(found(index))", at: index)
            }
            var written = 0
            while index < count, Self.isDigit(bytes[index]) {
                // Beyond any Double's range either way; stop growing so the sum below cannot overflow.
                if written < 1_000_000 {
                    written = written * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        offset = index

        let value: Double
        if let exact = Self.exactValue(mantissa: mantissa, exponent: exponent, truncated: truncated) {
            value = negative ? -exact : exact
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let parsed = Double(text) else {
                throw error("invalid number", at: start)
            }
            value = parsed
        }
        return ScannedNumber(value: value, start: start, end: index, isInteger: isInteger)
    }

    /// `mantissa × 10^exponent` when one exact operation gives it correctly rounded, else nil.
    @inline(__always)
    private static func exactValue(mantissa: UInt64, exponent: Int, truncated: Bool) -> Double? {
        guard !truncated else { return nil }
        if mantissa == 0 { return 0 }
        guard mantissa <= 1 << 53 else { return nil }
        if exponent >= 0 {
            if exponent <= 22 { return Double(mantissa) * exactPowersOfTen[exponent] }
            // 1e30 and the like: move the excess into the mantissa while it stays exact.
            guard exponent <= 22 + 15 else { return nil }
            let (shifted, overflow) = mantissa.multipliedReportingOverflow(by: UInt64(exactPowersOfTen[exponent - 22]))
            guard !overflow, shifted <= 1 << 53 else { return nil }
            return Double(shifted) * exactPowersOfTen[22]
        }
        guard exponent >= -22 else { return nil }
        return Double(mantissa) / exactPowersOfTen[-exponent]
    }
}

import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

@Suite struct JSONScannerTests {
    // MARK: Structure

    @Test func readsNestedValuesWithMembersInInputOrder() throws {
        let value = try parseJSON(#" { "b" : [1, true, false, null, "x"], "a": {}, "b": [] } "#)
        let one = JSONNumber(text: "1", value: 1, isInteger: true)
        #expect(value == .object([
            .init(key: "b", value: .array([.number(one), .bool(true), .bool(false), .null, .string("x")])),
            .init(key: "a", value: .object([])),
            .init(key: "b", value: .array([])),
        ]))
    }

    @Test func skipsALeadingByteOrderMark() throws {
        #expect(try parseJSON([0xEF, 0xBB, 0xBF] + Array("[]".utf8)) == .array([]))
    }

    @Test(arguments: [
        ("", "expected a value, found end of input"),
        ("   ", "expected a value, found end of input"),
        ("[1,]", "expected a value, found ']'"),
        ("[1 2]", "expected ',' or ']' after array element, found '2'"),
        ("{\"a\" 1}", "expected ':' after object key, found '1'"),
        ("{\"a\":1,}", "expected a string key after ',', found '}'"),
        ("{a:1}", "expected a string key or '}', found 'a'"),
        ("{\"a\":1 \"b\":2}", "expected ',' or '}' after object member, found '\"'"),
        ("[1", "expected ',' or ']' after array element, found end of input"),
        ("[", "expected a value or ']', found end of input"),
        ("{} x", "expected end of input after the JSON value, found 'x'"),
        ("[1] [2]", "expected end of input after the JSON value, found '['"),
        ("tru", "invalid literal; expected 'true'"),
        ("nul", "invalid literal; expected 'null'"),
        ("falsy", "invalid literal; expected 'false'"),
        ("[True]", "expected a value, found 'T'"),
        ("'a'", "expected a value, found '''"),
    ])
    func rejectsMalformedStructure(text: String, message: String) {
        #expect(jsonError(text)?.message == message)
    }

    @Test func reportsTheLineAndColumnOfASyntaxError() throws {
        let text = "{\n  \"a\": [1, 2],\n  \"b\": [3 x]\n}"
        let error = try #require(jsonError(text))
        #expect(error.location == .line(3, column: 11))
        #expect(error.message == "expected ',' or ']' after array element, found 'x'")
        #expect(error.description == "t.json:3:11: expected ',' or ']' after array element, found 'x'")
    }

    @Test func countsCRLFAsOneLineBreak() throws {
        let error = try #require(jsonError("[\r\n1,\r\n\r\n  ?]"))
        #expect(error.location == .line(4, column: 3))
    }

    @Test func limitsNestingDepth() throws {
        let deepest = String(repeating: "[", count: JSONScanner.maximumDepth)
            + String(repeating: "]", count: JSONScanner.maximumDepth)
        #expect(throws: Never.self) { try parseJSON(deepest) }
        let tooDeep = "[" + deepest + "]"
        #expect(jsonError(tooDeep)?.message == "nesting deeper than 512 arrays and objects")
        // Far deeper than any stack would take if the scanner recursed without a limit.
        let hostile = String(repeating: "[{\"a\":", count: 100_000)
        #expect(jsonError(hostile)?.location == .line(1, column: 256 * 6 + 1))
    }

    // MARK: Strings

    @Test(arguments: [
        (#""plain""#, "plain"),
        (#""""#, ""),
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        (#""caf\u00e9 \u00E9""#, "café é"),
        (#""\u0000""#, "\u{0}"),
        (#""\uD83D\uDE00!""#, "😀!"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        ("\"raw é 😀 ✓\"", "raw é 😀 ✓"),
        ("\"a\\nb é\\u0041\"", "a\nb éA"),
    ])
    func decodesStrings(text: String, expected: String) throws {
        #expect(try parseJSON(text) == .string(expected))
    }

    @Test(arguments: [
        (#""\uD800""#, #"lone surrogate \uD800 in string (a high surrogate must be followed by a low one)"#),
        (#""\uD800x""#, #"lone surrogate \uD800 in string (a high surrogate must be followed by a low one)"#),
        (#""\uD800\u0041""#, #"lone surrogate \uD800 in string (followed by \u0041, not a low surrogate)"#),
        (#""\uDC00""#, #"lone surrogate \uDC00 in string (a low surrogate without a high one)"#),
        (#""\u12""#, #"invalid \u escape in string: expected four hex digits"#),
        (#""\u12G4""#, #"invalid \u escape in string: expected four hex digits"#),
        (#""\x""#, #"invalid escape '\' followed by 'x' in string"#),
        ("\"a\nb\"", "unescaped control character 0xA in string"),
        ("\"a\tb\"", "unescaped control character 0x9 in string"),
        ("\"abc", "unterminated string"),
        ("\"abc\\", "unterminated string"),
    ])
    func rejectsBadStrings(text: String, message: String) {
        #expect(jsonError(text)?.message == message)
    }

    @Test(arguments: [
        [0xC0, 0x80],             // overlong NUL
        [0xE0, 0x80, 0x80],       // overlong
        [0xED, 0xA0, 0x80],       // an encoded surrogate
        [0xF4, 0x90, 0x80, 0x80], // above U+10FFFF
        [0xFF],
        [0x80],                   // a continuation byte alone
        [0xE2, 0x82],             // truncated
    ] as [[UInt8]])
    func rejectsInvalidUTF8InStrings(sequence: [UInt8]) throws {
        let error = try #require(jsonError([UInt8(ascii: "\""), UInt8(ascii: "a")] + sequence + [UInt8(ascii: "\"")]))
        #expect(error.message == "invalid UTF-8 in string")
        #expect(error.location == .line(1, column: 3))
    }

    @Test func namesNonASCIIBytesInMessages() {
        #expect(jsonError("[1é]")?.message == "expected ',' or ']' after array element, found 'é'")
        #expect(jsonError([UInt8(ascii: "["), 0xFF])?.message == "expected a value, found byte 0xFF")
    }

    // MARK: Numbers

    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("1", 1), ("-12", -12), ("1.5", 1.5), ("0.1", 0.1), ("-0.000123", -0.000123),
        ("1e2", 100), ("1E2", 100), ("1e+2", 100), ("1.5e-3", 0.0015), ("25e-1", 2.5), ("0e400", 0),
        ("1e30", 1e30), ("123456789012345678901234567890", 1.2345678901234568e29),
        ("9007199254740993", 9007199254740992), ("5e-324", .leastNonzeroMagnitude), ("1e-400", 0),
        ("1.7976931348623157e308", 1.7976931348623157e308), ("2.2250738585072014e-308", 2.2250738585072014e-308),
        ("0.30000000000000004", 0.30000000000000004), ("179.99999999999997", 179.99999999999997),
    ])
    func readsNumbers(text: String, expected: Double) throws {
        let value = try parseJSON(text)
        guard case .number(let number) = value else {
            Issue.record("not a number: \(value)")
            return
        }
        #expect(number.value.bitPattern == expected.bitPattern)
        #expect(number.text == text)
    }

    @Test func tellsIntegersFromOtherNumbers() throws {
        func number(_ text: String) throws -> JSONNumber {
            guard case .number(let number) = try parseJSON(text) else { throw JSONSyntaxError(offset: 0, message: "") }
            return number
        }
        #expect(try number("42").isInteger)
        #expect(try number("-42").int64 == -42)
        #expect(try number("1.0").isInteger == false)
        #expect(try number("1e2").isInteger == false)
        #expect(try number("18446744073709551615").nonNegativeInteger == UInt64.max)
        #expect(try number("18446744073709551616").nonNegativeInteger == nil)
        #expect(try number("-0").nonNegativeInteger == nil)
        #expect(try number("9223372036854775808").int64 == nil)
    }

    @Test(arguments: [
        ("01", "invalid number: leading zeros are not allowed"),
        ("-01", "invalid number: leading zeros are not allowed"),
        ("-", "invalid number: expected a digit after '-', found end of input"),
        ("-a", "invalid number: expected a digit after '-', found 'a'"),
        ("1.", "invalid number: expected a digit after '.', found end of input"),
        ("1.e3", "invalid number: expected a digit after '.', found 'e'"),
        ("1e", "invalid number: expected a digit in the exponent, found end of input"),
        ("1e+", "invalid number: expected a digit in the exponent, found end of input"),
        (".5", "expected a value, found '.'"),
        ("+1", "expected a value, found '+'"),
        ("0x10", "expected end of input after the JSON value, found 'x'"),
        ("Infinity", "expected a value, found 'I'"),
        ("NaN", "expected a value, found 'N'"),
        ("1e400", "number out of range"),
        ("-1e400", "number out of range"),
        ("[0, 1.8e308]", "number out of range"),
    ])
    func rejectsBadNumbers(text: String, message: String) {
        #expect(jsonError(text)?.message == message)
    }

    @Test func pointsAtTheStartOfANumberOutOfRange() {
        #expect(jsonError("[1,\n  -2e999]")?.location == .line(2, column: 3))
    }

    /// Random decimal strings of every shape must convert to exactly what `Double(String)` (correctly rounded) gives.
    @Test func convertsDecimalsExactlyLikeTheStandardLibrary() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        func digits(_ count: Int, leadingZeroAllowed: Bool) -> String {
            var text = ""
            for index in 0..<count {
                let low = index == 0 && !leadingZeroAllowed ? 1 : 0
                text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(Int.random(in: low...9, using: &random)))))
            }
            return text
        }
        var checked = 0
        for _ in 0..<30_000 {
            var text = Bool.random(using: &random) ? "-" : ""
            let integerDigits = Int.random(in: 0...(Bool.random(using: &random) ? 4 : 22), using: &random)
            text += integerDigits == 0 ? "0" : digits(integerDigits, leadingZeroAllowed: false)
            if Bool.random(using: &random) {
                text += "." + digits(Int.random(in: 1...(Bool.random(using: &random) ? 8 : 25), using: &random),
                                     leadingZeroAllowed: true)
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: text += "e" + String(Int.random(in: -30...30, using: &random))
            case 1: text += "E+" + String(Int.random(in: 0...330, using: &random))
            case 2: text += "e-" + String(Int.random(in: 0...345, using: &random))
            default: break
            }
            let expected = try #require(Double(text))
            if expected.isFinite {
                guard case .number(let number) = try parseJSON(text) else {
                    Issue.record("\(text) did not parse as a number")
                    continue
                }
                #expect(number.value.bitPattern == expected.bitPattern, "\(text)")
                checked += 1
            } else {
                #expect(jsonError(text)?.message == "number out of range", "\(text)")
            }
        }
        #expect(checked > 20_000)
    }

    // MARK: Compact text

    @Test func reserialisesCompactlyInInputOrder() throws {
        let value = try parseJSON(" { \"z\" : [ 1 , 2.50 , { } ] , \"a\" : \"q\\\"\\u0001\\n/é\" , \"n\" : null } ")
        #expect(value.compactText == #"{"z":[1,2.50,{}],"a":"q\"\u0001\n/é","n":null}"#)
    }
}

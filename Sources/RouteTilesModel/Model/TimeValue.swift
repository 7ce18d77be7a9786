/// Instants as RouteTiles keeps them: whole milliseconds since 1970-01-01T00:00:00Z, from 1970 up to the end of
/// year 9999. Read from ISO 8601 text (RFC 3339) or Unix seconds; written as ISO 8601 UTC.
///
/// Written by hand rather than with Foundation's `ISO8601DateFormatter`: that one is slow per call, reads
/// fractions differently on Linux, and a time is parsed for every fix of a batch.
public enum TimeValue {
    /// The first instant kept: 1970-01-01T00:00:00Z.
    public static let earliest: Int64 = 0
    /// The last instant kept: 9999-12-31T23:59:59.999Z.
    public static let latest: Int64 = 253_402_300_799_999

    /// What zone-less text (`2026-11-27T14:05:00`) means.
    public enum ZonelessRule: Sendable, Equatable {
        /// Refused: request bodies and query parameters must name their zone.
        case refuse
        /// Read as UTC (GPX, whose schema says so; files read with `--time-zone UTC`).
        case utc
    }

    /// An instant from ISO 8601 text: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, with `T` or a space between
    /// date and time, letters in either case, a leap second (`:60`) read as the next second, and fractions rounded
    /// to the millisecond.
    public static func parse(_ text: some StringProtocol, zoneless: ZonelessRule = .refuse) throws(TimeValueError) -> Int64 {
        let read = text.utf8.withContiguousStorageIfAvailable { instant(utf8: $0, zoneless: zoneless) }
            ?? Array(text.utf8).withUnsafeBufferPointer { instant(utf8: $0, zoneless: zoneless) }
        guard let milliseconds = read.milliseconds else { throw TimeValueError(text: String(text), reason: read.problem) }
        return milliseconds
    }

    /// An instant from ISO 8601 text given as UTF-8 bytes (a field of a file already in memory), read as
    /// `parse(_:zoneless:)` reads text, without making a string first.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>, zoneless: ZonelessRule = .refuse) throws(TimeValueError) -> Int64 {
        let read = instant(utf8: bytes, zoneless: zoneless)
        guard let milliseconds = read.milliseconds else {
            throw TimeValueError(text: String(decoding: bytes, as: UTF8.self), reason: read.problem)
        }
        return milliseconds
    }

    /// The instant in `bytes`, or nil and why not.
    private static func instant(utf8 bytes: UnsafeBufferPointer<UInt8>,
                                zoneless: ZonelessRule) -> (milliseconds: Int64?, problem: TimeValueError.Reason) {
        var scanner = TimeScanner(bytes)
        let milliseconds = scanner.instant(zoneless: zoneless)
        return (milliseconds, scanner.problem ?? .notATime)
    }

    /// An instant from ISO 8601 text as `parse` reads it, or from Unix seconds written as a number (`1795788305`,
    /// `1795788305.5`): the two forms of a time in a query parameter.
    public static func parse(textOrSeconds text: some StringProtocol, zoneless: ZonelessRule = .refuse) throws(TimeValueError) -> Int64 {
        if let first = text.utf8.first, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39),
           !text.utf8.contains(UInt8(ascii: ":")), let number = Double(String(text)) {
            guard let milliseconds = seconds(number) else {
                throw TimeValueError(text: String(text), reason: .outOfRange)
            }
            return milliseconds
        }
        return try parse(text, zoneless: zoneless)
    }

    /// An instant from Unix seconds, rounded to the millisecond; nil when not finite or outside 1970–9999.
    public static func seconds(_ number: Double) -> Int64? {
        guard number.isFinite else { return nil }
        let milliseconds = (number * 1000).rounded()
        guard milliseconds >= Double(earliest), milliseconds <= Double(latest) else { return nil }
        return Int64(milliseconds)
    }

    /// ISO 8601 UTC text: `2026-11-27T14:05:00Z`, or `2026-11-27T14:05:00.250Z` when the milliseconds are not zero.
    public static func iso(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO(milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `iso(milliseconds)` to `bytes` (for writers that build a body byte by byte).
    public static func appendISO(_ milliseconds: Int64, to bytes: inout [UInt8]) {
        let clamped = min(max(milliseconds, earliest), latest)
        let days = clamped / 86_400_000
        var rest = clamped % 86_400_000
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
                value %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); bytes.append(UInt8(ascii: "-"))
        digits(month, 2); bytes.append(UInt8(ascii: "-"))
        digits(day, 2); bytes.append(UInt8(ascii: "T"))
        digits(rest / 3_600_000, 2); bytes.append(UInt8(ascii: ":")); rest %= 3_600_000
        digits(rest / 60_000, 2); bytes.append(UInt8(ascii: ":")); rest %= 60_000
        digits(rest / 1000, 2)
        if rest % 1000 != 0 {
            bytes.append(UInt8(ascii: "."))
            digits(rest % 1000, 3)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// A length of time as a person writes it: `90m`, `2h`, `7d`, `45s`, or a bare number of seconds; in
    /// milliseconds. Nil when unreadable or not positive.
    public static func duration(_ text: some StringProtocol) -> Int64? {
        let trimmed = text.trimmingSpaces
        guard let last = trimmed.last else { return nil }
        let unit: Double
        var number = Substring(trimmed)
        switch last {
        case "s": unit = 1; number = number.dropLast()
        case "m": unit = 60; number = number.dropLast()
        case "h": unit = 3600; number = number.dropLast()
        case "d": unit = 86_400; number = number.dropLast()
        default: unit = 1
        }
        guard let value = Double(number), value.isFinite, value > 0, value * unit < 1e11 else { return nil }
        return Int64((value * unit * 1000).rounded())
    }
}

/// Why a time could not be read.
public struct TimeValueError: Error, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case notATime
        case noZone
        case outOfRange
    }

    public var text: String
    public var reason: Reason

    public init(text: String, reason: Reason) {
        self.text = text
        self.reason = reason
    }

    public var description: String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        switch reason {
        case .notATime: return "'\(shown)' is not an ISO 8601 date-time (2026-11-27T14:05:00Z) or Unix seconds"
        case .noZone: return "'\(shown)' has no zone (end it with Z or an offset such as +01:00)"
        case .outOfRange: return "'\(shown)' is outside 1970-01-01 to 9999-12-31"
        }
    }
}

/// Days since 1970-01-01 to and from a proleptic Gregorian date (H. Hinnant's civil-date algorithms).
enum CivilCalendar {
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func date(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// Reads one RFC 3339 date-time from bytes.
private struct TimeScanner {
    /// The text without the spaces around it.
    let bytes: Slice<UnsafeBufferPointer<UInt8>>
    var index: Int
    var problem: TimeValueError.Reason?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 { end -= 1 }
        self.bytes = bytes[start..<end]
        index = start
    }

    mutating func number(_ count: Int) -> Int64? {
        guard index + count <= bytes.endIndex else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<(index + count)] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += count
        return value
    }

    mutating func expect(_ options: String) -> Bool {
        guard index < bytes.endIndex, options.utf8.contains(bytes[index]) else { return false }
        index += 1
        return true
    }

    mutating func instant(zoneless: TimeValue.ZonelessRule) -> Int64? {
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
              let second = number(2),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction: Int64 = 0
        if expect(".,") {
            // The first three digits are milliseconds; the fourth rounds them (half up); later ones are dropped.
            var digits = 0
            while index < bytes.endIndex, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                let digit = Int64(bytes[index] - 0x30)
                if digits < 3 {
                    fraction = fraction * 10 + digit
                } else if digits == 3, digit >= 5 {
                    fraction += 1
                }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { fraction *= 10 }
        }
        var offset: Int64 = 0
        if index == bytes.endIndex {
            guard zoneless == .utc else {
                problem = .noZone
                return nil
            }
        } else if expect("Zz") {
        } else if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), hours < 24 else { return nil }
            _ = expect(":")
            guard let minutes = number(2), minutes < 60 else { return nil }
            offset = sign * (hours * 60 + minutes) * 60_000
        } else {
            return nil
        }
        guard index == bytes.endIndex else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let milliseconds = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + fraction - offset
        guard milliseconds >= TimeValue.earliest, milliseconds <= TimeValue.latest else {
            problem = .outOfRange
            return nil
        }
        return milliseconds
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}

import Foundation
import RouteTilesModel

/// Reads routes from CSV: one row per point, a header row naming the columns.
///
/// Latitude comes from the column `lat` or `latitude`, longitude from `lon`, `lng`, `long` or `longitude` (names
/// trimmed and compared without regard to case; `ReadOptions.latColumn` and `lonColumn` name others). An optional
/// `route`, `id` or `object_id` column (or `ReadOptions.routeColumn`) groups rows into routes: the rows sharing a value form one
/// route, routes in order of first appearance, points in file order (or time order, see below). Without it the whole
/// file is one route. Other columns are ignored; CSV routes carry no properties.
///
/// A `time`, `timestamp` or `datetime` column (or `ReadOptions.timeColumn`) gives each row its time, ISO 8601 or
/// Unix seconds (zone-less text only with `ReadOptions.timeZone` UTC). A route's times are used when every row has
/// one, each can be read, and they never go back (unless `ReadOptions.orderByTime` puts its rows in time order);
/// otherwise it is read without times (`ReadResult.droppedTimes`), or with `TimesRule.strict` that is an error.
/// So tracktable's `object_id,timestamp,longitude,latitude` reads without options.
///
/// Errors name the line and the field number (1-based) as the column. With `ReadOptions.skipInvalid`, a bad row
/// drops its route (reported once in `ReadResult.invalid`); a row with the wrong number of fields is dropped alone,
/// since its columns cannot be trusted. Unterminated quotes always throw.
enum CSVReader {
    static func read(_ bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        try bytes.withUnsafeBufferPointer { buffer throws(InputError) -> ReadResult in
            var reader = CSVRouteReader(scanner: CSVRecordScanner(bytes: buffer, file: file), options: options)
            return try reader.read()
        }
    }

    /// Whether the first line of `bytes` is a CSV header with a latitude and a longitude column, under their
    /// default names.
    static func headerNamesCoordinates(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = CSVRecordScanner(bytes: buffer, file: "")
            var record = CSVRecordScanner.Record(line: 0)
            guard (try? scanner.next(into: &record)) == true else { return false }
            let names = record.fields.map { CSVColumns.normalized(scanner.text(of: $0)) }
            return names.contains(where: CSVColumns.latitudeNames.contains)
                && names.contains(where: CSVColumns.longitudeNames.contains)
        }
    }
}

/// One pass over a CSV file: rows grouped into routes as they come.
private struct CSVRouteReader {
    /// The rows of one route so far.
    struct Group {
        var id: RouteID?
        var key: String
        var firstLine: Int
        var points: [Coordinate] = []
        var times: TimesDraft
        var isInvalid = false
    }

    var scanner: CSVRecordScanner
    let options: ReadOptions
    var groups: [Group] = []
    var groupIndex: [String: Int] = [:]
    /// The route field of the last row and its group: rows of one route usually follow each other, and the same
    /// bytes need no new string and no lookup.
    var lastKey: (range: Range<Int>, group: Int)?
    var result = ReadResult()

    init(scanner: CSVRecordScanner, options: ReadOptions) {
        self.scanner = scanner
        self.options = options
    }

    var file: String { scanner.file }

    mutating func read() throws(InputError) -> ReadResult {
        var record = CSVRecordScanner.Record(line: 0)
        guard try nextNonBlank(&record) else { throw InputError(file: file, message: "file is empty") }
        let header = record.fields.map { scanner.text(of: $0) }
        let columns = try CSVColumns(header: header, options: options, file: file, line: record.line)

        while try nextNonBlank(&record) {
            guard record.fields.count == columns.count else {
                let fields = record.fields.count == 1 ? "1 field" : "\(record.fields.count) fields"
                try fail(InputError(file: file, location: .line(record.line, column: nil),
                                    message: "row has \(fields), header has \(columns.count)"), group: nil)
                continue
            }
            let group = self.group(of: record, columns: columns)
            guard !groups[group].isInvalid else { continue }
            do throws(InputError) {
                let latitude = try number(record, column: columns.latitude, name: "latitude")
                if let problem = CoordinateLimits.latitudeProblem(latitude, text: fieldText(record, columns.latitude)) {
                    throw InputError(file: file, location: .line(record.line, column: columns.latitude + 1),
                                     message: problem)
                }
                let longitude = try number(record, column: columns.longitude, name: "longitude")
                if let problem = CoordinateLimits.longitudeProblem(longitude, text: fieldText(record, columns.longitude)) {
                    throw InputError(file: file, location: .line(record.line, column: columns.longitude + 1),
                                     message: problem)
                }
                var time: Int64?
                if let column = columns.time {
                    do throws(InputError) {
                        time = try self.time(record, column: column, detected: columns.timeDetected)
                    } catch {
                        try groups[group].times.unusable(error)
                    }
                }
                groups[group].points.append(Coordinate(longitude: longitude, latitude: latitude))
                if let column = columns.time {
                    groups[group].times.add(time, at: .line(record.line, column: column + 1))
                }
            } catch {
                try fail(error, group: group)
            }
        }

        for group in groups where !group.isInvalid {
            guard group.points.count >= 2 else {
                let name = group.id == nil && columns.route == nil ? "the route" : "route '\(group.key)'"
                let points = group.points.count == 1 ? "1 point" : "\(group.points.count) points"
                try fail(InputError(file: file, location: .line(group.firstLine, column: nil),
                                    message: "\(name) has \(points) (first on line \(group.firstLine)); "
                                        + "a route needs at least 2"), group: nil)
                continue
            }
            var points = group.points
            let times: [Int64]?
            do throws(InputError) {
                let finished = try group.times.finish(reordering: &points, byTime: options.orderByTime)
                times = finished.times
                if let dropped = finished.dropped { result.droppedTimes.append(dropped) }
            } catch {
                try fail(error, group: nil)
                continue
            }
            result.routes.append(Route(id: group.id, parts: [points], origin: "\(file) line \(group.firstLine)",
                                       times: times))
        }
        return result
    }

    /// The group (route) of a row: by its route column, else the one route of the file.
    private mutating func group(of record: CSVRecordScanner.Record, columns: CSVColumns) -> Int {
        guard let column = columns.route else {
            return groupIndex[""] ?? newGroup(key: "", line: record.line, hasRouteColumn: false)
        }
        let field = record.fields[column]
        if let last = lastKey, !field.hasDoubledQuotes, scanner.sameBytes(field.range, last.range) { return last.group }
        let key = scanner.text(of: field).trimmingSpaces()
        let group = groupIndex[key] ?? newGroup(key: key, line: record.line, hasRouteColumn: true)
        lastKey = field.hasDoubledQuotes ? nil : (field.range, group)
        return group
    }

    /// A field's text without the spaces around it, for messages.
    private func fieldText(_ record: CSVRecordScanner.Record, _ column: Int) -> String {
        scanner.text(of: record.fields[column]).trimmingSpaces()
    }

    /// The next record that is not a blank line.
    private mutating func nextNonBlank(_ record: inout CSVRecordScanner.Record) throws(InputError) -> Bool {
        while try scanner.next(into: &record) {
            if !record.isBlank(in: scanner.bytes) { return true }
        }
        return false
    }

    private mutating func newGroup(key: String, line: Int, hasRouteColumn: Bool) -> Int {
        let id: RouteID? = hasRouteColumn && !key.isEmpty ? Self.routeID(key) : nil
        groups.append(Group(id: id, key: key, firstLine: line, times: TimesDraft(file: file, noun: "row", rule: options.times)))
        groupIndex[key] = groups.count - 1
        return groups.count - 1
    }

    /// A route id: a number when written as a plain non-negative integer (no sign, no leading zeros), else text.
    static func routeID(_ text: String) -> RouteID {
        let digits = text.utf8
        let isCanonical = !digits.isEmpty && digits.allSatisfy { $0 &- UInt8(ascii: "0") < 10 }
            && (digits.count == 1 || digits.first != UInt8(ascii: "0"))
        if isCanonical, let value = UInt64(text) { return .number(value) }
        return .string(text)
    }

    /// Throws `error`, or under `skipInvalid` records it and marks its route (if any) invalid.
    private mutating func fail(_ error: InputError, group: Int?) throws(InputError) {
        guard options.skipInvalid else { throw error }
        result.invalid.append(error)
        if let group { groups[group].isInvalid = true }
    }

    /// The time in a field, ISO 8601 or Unix seconds, parsed in place from its bytes; nil when the field is empty.
    /// When the column was `detected` by its name, an unreadable time says how to read no times instead.
    private func time(_ record: CSVRecordScanner.Record, column: Int, detected: Bool) throws(InputError) -> Int64? {
        let field = record.fields[column]
        let location = InputError.Location.line(record.line, column: column + 1)
        let instant: Int64
        do throws(TimeValueError) {
            if let bytes = scanner.trimmedBytes(of: field) {
                guard !bytes.isEmpty else { return nil }
                if let seconds = DecimalText.value(of: bytes) {
                    guard let time = TimeValue.seconds(seconds) else {
                        throw TimeValueError(text: String(decoding: bytes, as: UTF8.self), reason: .outOfRange)
                    }
                    return time
                }
                instant = try TimeValue.parse(utf8: bytes, zoneless: options.timeZone)
            } else {
                let text = scanner.text(of: field).trimmingSpaces()
                guard !text.isEmpty else { return nil }
                instant = try TimeValue.parse(textOrSeconds: text, zoneless: options.timeZone)
            }
        } catch {
            let hint = detected && error.reason == .notATime ? "; --time-column none reads no times" : ""
            throw InputError(file: file, location: location, message: TimesDraft.message(error) + hint)
        }
        return instant
    }

    /// The number in a field: parsed in place from its bytes, or from its text when it has doubled quotes or is
    /// not a plain decimal (to say what is wrong).
    private func number(_ record: CSVRecordScanner.Record, column: Int, name: String) throws(InputError) -> Double {
        let field = record.fields[column]
        if let bytes = scanner.trimmedBytes(of: field), let value = DecimalText.value(of: bytes) { return value }
        let text = scanner.text(of: field).trimmingSpaces()
        let location = InputError.Location.line(record.line, column: column + 1)
        guard !text.isEmpty else { throw InputError(file: file, location: location, message: "\(name) is empty") }
        guard DecimalText.isDecimal(text.utf8), let value = Double(text) else {
            throw InputError(file: file, location: location, message: "\(name) '\(text)' is not a number")
        }
        return value
    }
}

/// The plain decimal numbers CSV coordinates are written in: an optional sign, digits with an optional decimal
/// point (`12`, `12.5`, `.5`, `5.`), an optional exponent. Rules out what `Double(String)` would also take
/// (`inf`, `nan`, hexadecimal).
enum DecimalText {
    /// The value of a plain decimal written in `bytes`, or nil when they are not one.
    static func value(of bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count < 64, isDecimal(bytes) else { return nil }
        // strtod (correctly rounded, as Double(String) is) on a NUL-terminated copy on the stack.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text -> Double? in
            for i in 0..<bytes.count { text[i] = CChar(bitPattern: bytes[i]) }
            text[bytes.count] = 0
            guard let start = text.baseAddress else { return nil }
            return strtod(start, nil)
        }
    }

    static func isDecimal<Bytes: Collection<UInt8>>(_ text: Bytes) -> Bool {
        var bytes = text[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integerDigits = bytes.prefix(while: isDigit).count
        bytes = bytes.dropFirst(integerDigits)
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(fractionDigits)
        }
        guard integerDigits + fractionDigits > 0 else { return false }
        if let e = bytes.first, e | 0x20 == UInt8(ascii: "e") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                bytes = bytes.dropFirst()
            }
            let exponentDigits = bytes.prefix(while: isDigit).count
            guard exponentDigits > 0 else { return false }
            bytes = bytes.dropFirst(exponentDigits)
        }
        return bytes.isEmpty
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}

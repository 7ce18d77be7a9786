import RouteTilesModel

/// A point list of fix objects, the form of an append that carries times:
/// `[{"lon": 2.3522, "lat": 48.8566, "t": "2026-11-27T14:05:00Z", "speed": 8.3, "course": 212.5}, …]`.
///
/// Objects, not a third number in a position, so that a time is never confused with an elevation. `lon` and `lat`
/// are required; `t` is ISO 8601 text with a zone or Unix seconds as a number; `speed` (m/s, not negative) and
/// `course` (degrees, 0 to 360) are optional and checked; other members are ignored. Every fix of a list has a `t`,
/// or none has (plain positions then).
enum FixObjectList {
    /// Whether the value at `offset` (whitespace skipped) is an array whose first element is an object: a list of
    /// fix objects, not of `[lon, lat]` positions. Reads nothing.
    static func startsWithObject(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        var index = offset
        func skip() { while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 } }
        skip()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return false }
        index += 1
        skip()
        return index < bytes.count && bytes[index] == UInt8(ascii: "{")
    }

    /// The points and times of a list of fix objects (times nil when no fix has one), or what is wrong, naming the
    /// position. A time later than `latest` (the server's clock plus the skew it allows) is refused.
    static func read(_ value: JSONValue, latest: Int64?) -> Result<(points: [Coordinate], times: [Int64]?), PositionListReader.Problem> {
        func problem(_ message: String) -> Result<(points: [Coordinate], times: [Int64]?), PositionListReader.Problem> {
            .failure(PositionListReader.Problem(message: message))
        }
        guard case let .array(elements) = value else { return problem("the point list must be an array") }
        var points: [Coordinate] = []
        var times: [Int64] = []
        points.reserveCapacity(elements.count)
        times.reserveCapacity(elements.count)
        var firstTimed: Int?
        var firstUntimed: Int?
        for (index, element) in elements.enumerated() {
            guard case let .object(members) = element else {
                return problem("position \(index): expected a fix object {\"lon\", \"lat\", \"t\"}, found \(element.kindDescription)")
            }
            var lon: Double?, lat: Double?, time: Int64?
            for member in members {
                switch member.key {
                case "lon", "lat", "speed", "course":
                    guard case let .number(number) = member.value, number.value.isFinite else {
                        return problem("position \(index): \"\(member.key)\" must be a number")
                    }
                    switch member.key {
                    case "lon": lon = number.value
                    case "lat": lat = number.value
                    case "speed" where number.value < 0:
                        return problem("position \(index): \"speed\" \(number.text) is not a speed in m/s")
                    case "course" where !(0...360).contains(number.value):
                        return problem("position \(index): \"course\" \(number.text) is not a course in degrees (0 to 360)")
                    default: break
                    }
                case "t":
                    do {
                        switch member.value {
                        case let .string(text): time = try TimeValue.parse(text)
                        case let .number(number): time = try TimeValue.parse(textOrSeconds: number.text)
                        default:
                            return problem("position \(index): \"t\" must be ISO 8601 text with a zone or Unix seconds, found \(member.value.kindDescription)")
                        }
                    } catch {
                        return problem("position \(index): \"t\": \(error)")
                    }
                default:
                    continue
                }
            }
            guard let lon, let lat else {
                return problem("position \(index): a fix needs \"lon\" and \"lat\"")
            }
            let coordinate = Coordinate(longitude: lon, latitude: lat)
            if let time {
                if let latest, time > latest {
                    return problem("position \(index): \"t\" \(TimeValue.iso(time)) is ahead of this server's clock by more than it allows (--max-fix-skew)")
                }
                firstTimed = firstTimed ?? index
                times.append(time)
            } else {
                firstUntimed = firstUntimed ?? index
            }
            points.append(coordinate)
        }
        if let firstTimed, let firstUntimed {
            return problem(firstTimed < firstUntimed
                ? "position \(firstUntimed) has no \"t\", but position \(firstTimed) has one: every fix of a list has a time, or none has"
                : "position \(firstTimed) has a \"t\", but position \(firstUntimed) has none: every fix of a list has a time, or none has")
        }
        return .success((points, firstTimed == nil ? nil : times))
    }
}

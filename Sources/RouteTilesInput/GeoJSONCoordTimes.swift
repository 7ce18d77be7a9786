import RouteTilesModel

/// The per-position times of a GeoJSON feature, as GPX and KML converters write them (togeojson, gpsbabel):
/// `properties.coordinateProperties.times`, else `properties.coordTimes`. Either is an array of times, one per
/// position with the parts flattened in order (the form `GET /routes/{id}` gives back), or, for a route of several
/// parts, an array of such arrays, one per part (togeojson's MultiLineString layout). A time is ISO 8601 text or
/// Unix seconds as a number.
///
/// Both keys are taken out of the feature's properties, whatever `--times` says: they are the positions' data, not
/// the route's, and as a property they would reach every tile as one long JSON string.
struct GeoJSONCoordTimes: Equatable {
    /// `properties.coordTimes`.
    var coordTimes: JSONValue?
    /// `properties.coordinateProperties.times`.
    var coordinatePropertyTimes: JSONValue?

    /// The members of a `properties` object without the time keys, and the times they held: `coordTimes` is
    /// removed; `times` is removed from `coordinateProperties`, which is kept with its other members, if it has any.
    static func take(from members: [JSONValue.Member]) -> (members: [JSONValue.Member], times: GeoJSONCoordTimes) {
        guard members.contains(where: { $0.key == "coordTimes" || $0.key == "coordinateProperties" }) else {
            return (members, GeoJSONCoordTimes())
        }
        var times = GeoJSONCoordTimes()
        var kept: [JSONValue.Member] = []
        kept.reserveCapacity(members.count)
        for member in members {
            switch member.key {
            case "coordTimes":
                times.coordTimes = member.value
            case "coordinateProperties":
                guard case .object(let inner) = member.value, inner.contains(where: { $0.key == "times" }) else {
                    kept.append(member)
                    continue
                }
                times.coordinatePropertyTimes = inner.last(where: { $0.key == "times" })?.value
                let rest = inner.filter { $0.key != "times" }
                if !rest.isEmpty { kept.append(JSONValue.Member(key: member.key, value: .object(rest))) }
            default:
                kept.append(member)
            }
        }
        return (kept, times)
    }

    /// The times of a route of `parts`, or nil when the feature gives none (or gives only nulls for them); when
    /// both keys hold times they must agree. Times that cannot be used are an error under `TimesRule.strict`;
    /// under `.keep` they are dropped, one instant on every position too, and `dropped` says why.
    func times(for parts: [[Coordinate]], zoneless: TimeValue.ZonelessRule,
               rule: TimesRule) throws(FeatureProblem) -> (times: [Int64]?, dropped: FeatureProblem?) {
        do throws(FeatureProblem) {
            let times = try strictTimes(for: parts, zoneless: zoneless)
            guard rule == .keep, let times, let instant = TimesDraft.repeatedInstant(times) else { return (times, nil) }
            let key = coordinatePropertyTimes != nil ? "coordinateProperties.times" : "coordTimes"
            return (nil, FeatureProblem("properties.\(key): "
                                            + TimesDraft.repeatedMessage(instant, count: times.count, noun: "position")))
        } catch {
            guard rule == .keep else { throw error }
            return (nil, error)
        }
    }

    /// The times as `times(for:zoneless:rule:)` reads them under `.strict`.
    private func strictTimes(for parts: [[Coordinate]],
                             zoneless: TimeValue.ZonelessRule) throws(FeatureProblem) -> [Int64]? {
        let fromCoordinateProperties = try Self.times(coordinatePropertyTimes, key: "coordinateProperties.times",
                                                      parts: parts, zoneless: zoneless)
        let fromCoordTimes = try Self.times(coordTimes, key: "coordTimes", parts: parts, zoneless: zoneless)
        if let fromCoordinateProperties, let fromCoordTimes,
           let index = fromCoordinateProperties.indices.first(where: {
               fromCoordinateProperties[$0] != fromCoordTimes[$0] }) {
            throw FeatureProblem("properties.coordinateProperties.times and coordTimes differ at position \(index) "
                                     + "(\(TimeValue.iso(fromCoordinateProperties[index])), "
                                     + "\(TimeValue.iso(fromCoordTimes[index])))")
        }
        return fromCoordinateProperties ?? fromCoordTimes
    }

    /// The times one key holds, checked against the parts: their number, their values, their order.
    private static func times(_ value: JSONValue?, key: String, parts: [[Coordinate]],
                              zoneless: TimeValue.ZonelessRule) throws(FeatureProblem) -> [Int64]? {
        guard let value else { return nil }
        let path = "properties." + key
        guard case .array(let elements) = value else {
            if value == .null { return nil }
            throw FeatureProblem("\(path) must be an array of times, found \(value.kindDescription)")
        }
        let pointCount = parts.reduce(0) { $0 + $1.count }
        var times: [Int64] = []
        times.reserveCapacity(pointCount)
        if case .array = elements.first {
            guard elements.count == parts.count else {
                throw FeatureProblem("\(path) has \(elements.count) arrays for \(parts.count) "
                                         + (parts.count == 1 ? "part" : "parts"))
            }
            for (partIndex, element) in elements.enumerated() {
                guard case .array(let inner) = element else {
                    throw FeatureProblem("\(path)[\(partIndex)] must be an array of times, found "
                                             + element.kindDescription)
                }
                guard inner.count == parts[partIndex].count else {
                    throw FeatureProblem("\(path)[\(partIndex)] has \(inner.count) times for "
                                             + "\(parts[partIndex].count) positions")
                }
                for (index, time) in inner.enumerated() {
                    times.append(try Self.time(time, path: "\(path)[\(partIndex)][\(index)]", zoneless: zoneless))
                }
            }
        } else {
            guard elements.count == pointCount else {
                throw FeatureProblem("\(path) has \(elements.count) times for \(pointCount) positions")
            }
            for (index, time) in elements.enumerated() {
                times.append(try Self.time(time, path: "\(path)[\(index)]", zoneless: zoneless))
            }
        }
        var draft = TimesDraft(file: "", noun: "position", rule: .strict)
        for time in times { draft.add(time, at: .none) }
        do {
            return try draft.finish().times
        } catch {
            throw FeatureProblem("\(path): \(error.message)")
        }
    }

    /// One time: ISO 8601 text or Unix seconds.
    private static func time(_ value: JSONValue, path: String,
                             zoneless: TimeValue.ZonelessRule) throws(FeatureProblem) -> Int64 {
        switch value {
        case .string(let text):
            do {
                return try TimeValue.parse(text, zoneless: zoneless)
            } catch {
                throw FeatureProblem("\(path): " + TimesDraft.message(error, what: ""))
            }
        case .number(let number):
            guard let time = TimeValue.seconds(number.value) else {
                throw FeatureProblem("\(path): \(number.text) is not Unix seconds within 1970-01-01 to 9999-12-31")
            }
            return time
        case .null:
            throw FeatureProblem("\(path) is null; a route has a time on every position or on none")
        default:
            throw FeatureProblem("\(path) must be ISO 8601 text or Unix seconds, found \(value.kindDescription)")
        }
    }
}

import RouteTilesModel

/// A GeoJSON Feature as read, and the route it makes.
struct FeatureDraft: GeoJSONDraft {
    var type: String?
    var id: RouteID?
    var properties: [Property] = []
    var geodesic = false
    /// The per-position times found in `properties` (and taken out of them).
    var coordTimes = GeoJSONCoordTimes()
    /// Nil when the member is missing or null.
    var geometry: GeometryDraft?
    /// The first member of the wrong JSON type, in words.
    var problem: String?

    static func readMember(_ key: String, into draft: inout FeatureDraft,
                           from scanner: inout JSONScanner) throws(JSONSyntaxError) -> Bool {
        try scanner.readFeatureMember(key, into: &draft)
    }
}

/// What one feature contributes to a read.
enum FeatureOutcome {
    /// A route, and why its times were dropped (`TimesRule.keep`), if they were.
    case route(Route, droppedTimes: FeatureProblem?)
    /// Not a line: counted under this type name ("Point", "null").
    case skipped(String)
    case invalid(FeatureProblem)
}

extension JSONScanner {
    /// Reads one element of a `features` array. Only JSON syntax errors throw; a malformed feature is recorded in the
    /// draft.
    mutating func readFeature() throws(JSONSyntaxError) -> FeatureDraft {
        var feature = FeatureDraft()
        let kind = try peekKind()
        guard kind == .object else {
            feature.note("a feature must be an object, found \(kind.description)")
            try skipValue()
            return feature
        }
        try readMembers(into: &feature)
        return feature
    }

    /// Reads the value of `key` if it is a feature member other than `type` (`id`, `properties`, `geometry`);
    /// returns false, having read nothing, for any other key.
    mutating func readFeatureMember(_ key: String, into feature: inout FeatureDraft) throws(JSONSyntaxError) -> Bool {
        switch key {
        case "id":
            switch try peekKind() {
            case .string: feature.id = .string(try readString())
            case .number:
                let number = try readNumber()
                feature.id = number.nonNegativeInteger.map(RouteID.number) ?? .string(number.text)
            case .null:
                try readNull()
                feature.id = nil
            case let kind:
                feature.note("\"id\" must be a string or a number, found \(kind.description)")
                try skipValue()
            }
        case "properties":
            switch try readValue() {
            case .object(let members):
                let (kept, times) = GeoJSONCoordTimes.take(from: members)
                (feature.properties, feature.geodesic) = Self.properties(from: kept)
                feature.coordTimes = times
            case .null:
                feature.properties = []
                feature.geodesic = false
                feature.coordTimes = GeoJSONCoordTimes()
            case let value:
                feature.note("\"properties\" must be an object or null, found \(value.kindDescription)")
            }
        case "geometry":
            let kind = try peekKind()
            switch kind {
            case .object: feature.geometry = try readGeometry()
            case .null:
                try readNull()
                feature.geometry = nil
            default:
                feature.note("\"geometry\" must be an object or null, found \(kind.description)")
                try skipValue()
            }
        default:
            return false
        }
        return true
    }

    /// Turns the members of a `properties` object into route properties, in input order: strings, numbers and
    /// booleans as they are, arrays and objects as compact JSON text, nulls dropped. A repeated key keeps its first
    /// place and its last value, as JSON parsers commonly do. `"geodesic": true` also asks for great circles.
    package static func properties(from members: [JSONValue.Member]) -> (properties: [Property], geodesic: Bool) {
        var properties: [Property] = []
        properties.reserveCapacity(members.count)
        var indexByKey: [String: Int] = [:]
        var geodesic = false
        for member in members {
            let value: PropertyValue
            switch member.value {
            case .null:
                if let index = indexByKey.removeValue(forKey: member.key) {
                    properties.remove(at: index)
                    for (key, later) in indexByKey where later > index { indexByKey[key] = later - 1 }
                }
                if member.key == "geodesic" { geodesic = false }
                continue
            case .bool(let flag): value = .bool(flag)
            case .string(let text): value = .string(text)
            case .number(let number): value = propertyValue(number)
            case .array, .object: value = .string(member.value.compactText)
            }
            if member.key == "geodesic" { geodesic = value == .bool(true) }
            if let index = indexByKey[member.key] {
                properties[index].value = value
            } else {
                indexByKey[member.key] = properties.count
                properties.append(Property(member.key, value))
            }
        }
        return (properties, geodesic)
    }

    /// Integers within Int64 as `.int`, larger non-negative integers as `.uint`, everything else as `.double`.
    static func propertyValue(_ number: JSONNumber) -> PropertyValue {
        if let value = number.int64 { return .int(value) }
        if let value = number.nonNegativeInteger { return .uint(value) }
        return .double(number.value)
    }
}

extension FeatureDraft {
    /// The route this feature makes, the type it is skipped under, or what is wrong with it; with its times, unless
    /// `options` ignores them.
    func outcome(origin: String, options: ReadOptions) -> FeatureOutcome {
        if let problem { return .invalid(FeatureProblem(problem)) }
        guard let type else { return .invalid(FeatureProblem("feature has no \"type\"")) }
        guard type == "Feature" else { return .invalid(FeatureProblem("expected type 'Feature', found '\(type)'")) }
        guard let geometry else { return .skipped("null") }
        do throws(FeatureProblem) {
            switch try geometry.outcome() {
            case .skipped(let name):
                return .skipped(name)
            case .lines(let parts):
                try Self.checkRanges(parts)
                let times: (times: [Int64]?, dropped: FeatureProblem?) = options.keepsTimes
                    ? try coordTimes.times(for: parts, zoneless: options.timeZone, rule: options.times) : (nil, nil)
                return .route(Route(id: id, properties: properties, parts: parts, origin: origin, geodesic: geodesic,
                                    times: times.times), droppedTimes: times.dropped)
            }
        } catch {
            return .invalid(error)
        }
    }

    /// Checks every coordinate against `CoordinateLimits`.
    static func checkRanges(_ parts: [[Coordinate]]) throws(FeatureProblem) {
        for (partIndex, part) in parts.enumerated() {
            for (index, coordinate) in part.enumerated() {
                if let problem = CoordinateLimits.problem(with: coordinate) {
                    throw FeatureProblem("coordinate \(index) of part \(partIndex): \(problem)")
                }
            }
        }
    }
}

import RouteTilesModel

/// Valhalla route responses: `trip.legs[].shape` (precision 6) and `maneuvers[]` indexing into it, lengths in the
/// response's `units`; alternatives under `alternates[].trip`.
extension DirectionsBuilder {
    mutating func readValhalla(_ document: JSONValue) throws {
        var trips = [document["trip"]]
        for alternate in document["alternates"]?.array ?? [] { trips.append(alternate["trip"]) }
        for (r, trip) in trips.enumerated() {
            try readRoute { builder in try builder.readValhallaTrip(trip, index: r) }
        }
    }

    private mutating func readValhallaTrip(_ trip: JSONValue?, index r: Int) throws {
        let path = r == 0 ? "trip" : "alternates[\(r - 1)].trip"
        guard let trip, case .object = trip else { throw error(path, "expected an object") }
        let metres = trip["units"]?.string.map { $0.hasPrefix("mi") ? 1609.344 : 1000 } ?? 1000
        var parts: [[Coordinate]] = []
        var stepIndex = 0
        var named: [(length: Double, name: String)] = []
        // Planned times: each maneuver's time spread over its stretch of the leg's shape, the clock running on
        // from leg to leg.
        let departure = departure()
        var times: [Int64]? = departure == nil ? nil : []
        var clock = 0.0
        for (l, leg) in (trip["legs"]?.array ?? []).enumerated() {
            let legPath = "\(path).legs[\(l)]"
            let shape = try polyline(leg["shape"], path: legPath + ".shape", precision: 6)
            parts.append(shape)
            var spans: [PlannedTimes.Span] = []
            var steps: [(step: Step, origin: String, span: PlannedTimes.Span?)] = []
            for (m, maneuver) in (leg["maneuvers"]?.array ?? []).enumerated() {
                let mPath = "\(legPath).maneuvers[\(m)]"
                let begin = maneuver["begin_shape_index"]?.int ?? 0
                let end = maneuver["end_shape_index"]?.int ?? begin
                guard begin >= 0, begin < max(shape.count, 1), end >= begin, end < max(shape.count, 1) else {
                    throw error(mPath, "shape indexes \(begin)...\(end) lie outside the shape of "
                                    + "\(shape.count) positions")
                }
                let line = shape.isEmpty ? [] : Array(shape[begin...end])
                let time = try duration(maneuver["time"], path: mPath + ".time")
                let span = time.map { PlannedTimes.Span(begin: begin, end: end, duration: $0) }
                if let span { spans.append(span) } else { times = nil }
                let code = maneuver["type"]?.int
                let type = code.map(Self.valhallaType)
                let name = maneuver["street_names"]?.array?.compactMap(\.string).joined(separator: ", ")
                if let name, !name.isEmpty { named.append((maneuver["length"]?.double ?? 0, name)) }
                steps.append((Step(routeIndex: r, line: line, instruction: maneuver["instruction"]?.string,
                                   name: name,
                                   distance: maneuver["length"]?.double.map { $0 * metres },
                                   duration: time, type: type,
                                   modifier: type.flatMap(Self.valhallaModifier),
                                   bearing: maneuver["bearing_after"]?.double,
                                   location: shape.isEmpty ? nil : shape[begin]), mPath, span))
            }
            var legTimes: [Int64]?
            if let departure, times != nil {
                let planned = PlannedTimes.offsets(line: shape, spans: spans, start: clock)
                clock = planned.end
                legTimes = PlannedTimes.times(departure: departure, offsets: planned.offsets)
                if let legTimes { times?.append(contentsOf: legTimes) } else { times = nil }
            }
            for step in steps {
                var stepTimes: ArraySlice<Int64>?
                if let legTimes, let span = step.span, span.end < legTimes.count {
                    stepTimes = legTimes[span.begin...span.end]
                }
                addStep(step.step, index: stepIndex, origin: step.origin, times: stepTimes)
                stepIndex += 1
            }
        }
        let summary = trip["summary"]
        try addRoute(index: r, parts: parts, distance: summary?["length"]?.double.map { $0 * metres },
                     duration: summary?["time"]?.double, summary: Self.valhallaSummary(named),
                     provider: "valhalla", origin: path, times: times)
    }

    /// Valhalla has no route summary: the streets of the two longest maneuvers, in route order, as OSRM summarises
    /// a leg ("Bahnhofstrasse, Uraniastrasse").
    static func valhallaSummary(_ named: [(length: Double, name: String)]) -> String? {
        let longest = named.enumerated().sorted { $0.element.length > $1.element.length }.prefix(2)
        var names: [String] = []
        for (_, item) in longest.sorted(by: { $0.offset < $1.offset }) where !names.contains(item.name) {
            names.append(item.name)
        }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// Valhalla's maneuver type numbers, as named in its API documentation.
    static let valhallaTypes = [
        "none", "start", "start_right", "start_left", "destination", "destination_right", "destination_left",
        "becomes", "continue", "slight_right", "right", "sharp_right", "uturn_right", "uturn_left", "sharp_left",
        "left", "slight_left", "ramp_straight", "ramp_right", "ramp_left", "exit_right", "exit_left",
        "stay_straight", "stay_right", "stay_left", "merge", "roundabout_enter", "roundabout_exit", "ferry_enter",
        "ferry_exit",
    ]

    static func valhallaType(_ code: Int) -> String {
        valhallaTypes.indices.contains(code) ? valhallaTypes[code] : "type_\(code)"
    }

    /// "slight_right" → "slight right"; "uturn_left" → "uturn"; "start" → nil.
    static func valhallaModifier(_ type: String) -> String? {
        if type.hasPrefix("uturn") { return "uturn" }
        for prefix in ["slight_", "sharp_"] where type.hasPrefix(prefix) {
            return type.replacingOccurrences(of: "_", with: " ")
        }
        if type.hasSuffix("_right") || type == "right" { return "right" }
        if type.hasSuffix("_left") || type == "left" { return "left" }
        if type.hasSuffix("straight") { return "straight" }
        return nil
    }
}

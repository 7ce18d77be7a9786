import RouteTilesModel

/// OSRM route service responses: `routes[].geometry` as polyline, polyline6 or GeoJSON, `legs[].steps[]` with
/// `maneuver {location, bearing_after, type, modifier}`.
extension DirectionsBuilder {
    mutating func readOSRM(_ document: JSONValue, routes: [JSONValue]) throws {
        let anchor = Self.osrmAnchor(document, routes: routes)
        for (r, route) in routes.enumerated() {
            try readRoute { builder in try builder.readOSRMRoute(route, index: r, anchor: anchor) }
        }
    }

    private mutating func readOSRMRoute(_ route: JSONValue, index r: Int, anchor: Coordinate?) throws {
        let path = "routes[\(r)]"
        let line = try osrmGeometry(route["geometry"], path: path + ".geometry", anchor: anchor)
        let legs = route["legs"]?.array ?? []
        var steps: [(step: Step, origin: String)] = []
        var joined = PlannedTimes.JoinedSteps()
        var stepsTimed = true
        for (l, leg) in legs.enumerated() {
            for (s, step) in (leg["steps"]?.array ?? []).enumerated() {
                let stepPath = "\(path).legs[\(l)].steps[\(s)]"
                let stepLine = step["geometry"] == nil ? []
                    : try osrmGeometry(step["geometry"], path: stepPath + ".geometry", anchor: anchor)
                let stepDuration = try duration(step["duration"], path: stepPath + ".duration")
                if stepDuration == nil || stepLine.isEmpty { stepsTimed = false }
                joined.append(stepLine, duration: stepDuration ?? 0)
                let maneuver = step["maneuver"]
                var location: Coordinate?
                if let pair = maneuver?["location"]?.array, pair.count == 2, let lon = pair[0].double,
                   let lat = pair[1].double {
                    location = try self.location(longitude: lon, latitude: lat, path: stepPath + ".maneuver.location")
                }
                let type = maneuver?["type"]?.string, modifier = maneuver?["modifier"]?.string
                let name = step["name"]?.string
                steps.append((Step(routeIndex: r, line: stepLine,
                                   instruction: Self.osrmInstruction(type: type, modifier: modifier, name: name),
                                   name: name, distance: step["distance"]?.double, duration: stepDuration,
                                   type: type, modifier: modifier, bearing: maneuver?["bearing_after"]?.double,
                                   location: location), stepPath))
            }
        }
        // Planned times: per segment from the annotation when it fits the geometry, else from the steps.
        var routeLine = line
        var routeTimes: [Int64]?
        var stepTimes: [Int64]?
        if let departure = departure() {
            stepTimes = stepsTimed && joined.line.count >= 2 ? joined.times(departure: departure) : nil
            if let durations = try annotationDurations(legs, path: path), durations.count == line.count - 1,
               !durations.isEmpty {
                routeTimes = PlannedTimes.times(departure: departure,
                                                offsets: PlannedTimes.offsets(segmentDurations: durations))
            } else if let stepTimes {
                routeLine = joined.line
                routeTimes = stepTimes
            }
        }
        for (index, step) in steps.enumerated() {
            addStep(step.step, index: index, origin: step.origin, times: joined.stepTimes(index, in: stepTimes))
        }
        let summary = legs.compactMap { $0["summary"]?.string }.filter { !$0.isEmpty }.joined(separator: "; ")
        try addRoute(index: r, parts: [routeLine], distance: route["distance"]?.double,
                     duration: route["duration"]?.double, summary: summary, provider: "osrm", origin: path,
                     times: routeTimes)
    }

    /// The legs' `annotation.duration` arrays joined (one duration per segment of the route's geometry, when the
    /// request asked for `annotations=duration` and `overview=full`); nil when a leg has none.
    private func annotationDurations(_ legs: [JSONValue], path: String) throws -> [Double]? {
        var durations: [Double] = []
        for (l, leg) in legs.enumerated() {
            guard let values = leg["annotation"]?["duration"]?.array else { return nil }
            for (i, value) in values.enumerated() {
                let valuePath = "\(path).legs[\(l)].annotation.duration[\(i)]"
                guard let seconds = try duration(value, path: valuePath) else { return nil }
                durations.append(seconds)
            }
        }
        return legs.isEmpty ? nil : durations
    }

    /// A position the geometry must start near (the first waypoint or maneuver), which tells polyline from
    /// polyline6: the response does not say which was asked for.
    static func osrmAnchor(_ document: JSONValue, routes: [JSONValue]) -> Coordinate? {
        let pair = document["waypoints"]?.array?.first?["location"]?.array
            ?? routes.first?["legs"]?.array?.first?["steps"]?.array?.first?["maneuver"]?["location"]?.array
        guard let pair, pair.count == 2, let lon = pair[0].double, let lat = pair[1].double else { return nil }
        return Coordinate(longitude: lon, latitude: lat)
    }

    /// A GeoJSON LineString, or an encoded polyline at the precision whose first position lies nearer `anchor`
    /// (else at `ReadOptions.precision`).
    func osrmGeometry(_ value: JSONValue?, path: String, anchor: Coordinate?) throws -> [Coordinate] {
        if let coordinates = value?["coordinates"]?.array {
            return try coordinates.enumerated().map { index, pair in
                guard let p = pair.array, p.count >= 2, let lon = p[0].double, let lat = p[1].double else {
                    throw error("\(path).coordinates[\(index)]", "expected [longitude, latitude]")
                }
                let c = Coordinate(longitude: lon, latitude: lat)
                if let problem = CoordinateLimits.problem(with: c) { throw error("\(path).coordinates[\(index)]", problem) }
                return c
            }
        }
        guard let anchor else { return try polyline(value, path: path, precision: options.precision) }
        let five = try? polyline(value, path: path, precision: 5)
        let six = try? polyline(value, path: path, precision: 6)
        func miss(_ line: [Coordinate]?) -> Double {
            guard let first = line?.first else { return .infinity }
            return abs(first.latitude - anchor.latitude) + abs(first.longitude - anchor.longitude)
        }
        if six == nil, five == nil { return try polyline(value, path: path, precision: options.precision) }
        return (miss(six) < miss(five) ? six : five) ?? []
    }

    /// "turn left onto Main Street"; nil without a type.
    static func osrmInstruction(type: String?, modifier: String?, name: String?) -> String? {
        guard let type else { return nil }
        var words = [type]
        if let modifier { words.append(modifier) }
        if let name, !name.isEmpty { words.append(type == "arrive" ? "at \(name)" : "onto \(name)") }
        return words.joined(separator: " ")
    }
}

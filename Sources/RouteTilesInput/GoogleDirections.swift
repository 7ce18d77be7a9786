import RouteTilesModel

/// Google Directions API responses: `routes[].overview_polyline.points` and `legs[].steps[]` (precision 5).
extension DirectionsBuilder {
    mutating func readGoogle(_ routes: [JSONValue]) throws {
        for (r, route) in routes.enumerated() {
            try readRoute { builder in try builder.readGoogleRoute(route, index: r) }
        }
    }

    private mutating func readGoogleRoute(_ route: JSONValue, index r: Int) throws {
        let path = "routes[\(r)]"
        let legs = route["legs"]?.array ?? []
        var parts: [[Coordinate]] = []
        if route["overview_polyline"] != nil {
            parts = [try polyline(route["overview_polyline"]?["points"], path: path + ".overview_polyline.points",
                                  precision: 5)]
        }
        var distance = 0.0, duration = 0.0, stepIndex = 0
        var joined = PlannedTimes.JoinedSteps()
        var stepsTimed = true
        var steps: [(step: Step, origin: String)] = []
        for (l, leg) in legs.enumerated() {
            distance += leg["distance"]?["value"]?.double ?? 0
            duration += leg["duration"]?["value"]?.double ?? 0
            for (s, step) in (leg["steps"]?.array ?? []).enumerated() {
                let stepPath = "\(path).legs[\(l)].steps[\(s)]"
                let line = try polyline(step["polyline"]?["points"], path: stepPath + ".polyline.points",
                                        precision: 5)
                let stepDuration = try self.duration(step["duration"]?["value"], path: stepPath + ".duration.value")
                if stepDuration == nil || line.isEmpty { stepsTimed = false }
                joined.append(line, duration: stepDuration ?? 0)
                var location: Coordinate?
                if let lat = step["start_location"]?["lat"]?.double, let lng = step["start_location"]?["lng"]?.double {
                    location = try self.location(longitude: lng, latitude: lat, path: stepPath + ".start_location")
                }
                let maneuver = step["maneuver"]?.string
                steps.append((Step(routeIndex: r, line: line,
                                   instruction: step["html_instructions"]?.string.map(Self.plainText),
                                   name: nil, distance: step["distance"]?["value"]?.double,
                                   duration: stepDuration,
                                   type: maneuver ?? (stepIndex == 0 ? "depart" : nil),
                                   modifier: maneuver.flatMap(Self.googleModifier), bearing: nil, location: location),
                              stepPath))
                stepIndex += 1
            }
        }
        // Planned times from the departure asked for, else the one the response states (transit): the route line
        // is then the steps' lines joined, since the overview polyline is simplified and has no step boundaries.
        let stated = legs.first?["departure_time"]?["value"]?.double.flatMap(TimeValue.seconds)
        var times: [Int64]?
        if let departure = departure(fallback: stated), stepsTimed, joined.line.count >= 2 {
            times = joined.times(departure: departure)
            if times != nil { parts = [joined.line] }
        }
        for (index, step) in steps.enumerated() {
            addStep(step.step, index: index, origin: step.origin, times: joined.stepTimes(index, in: times))
        }
        if parts.isEmpty { parts = [joined.line] }
        try addRoute(index: r, parts: parts, distance: legs.isEmpty ? nil : distance,
                     duration: legs.isEmpty ? nil : duration, summary: route["summary"]?.string, provider: "google",
                     origin: path, times: times)
    }

    /// "turn-slight-left" → "slight left"; "roundabout-right" → "right".
    static func googleModifier(_ maneuver: String) -> String? {
        for modifier in ["sharp-left", "sharp-right", "slight-left", "slight-right", "uturn-left", "uturn-right"]
        where maneuver.hasSuffix(modifier) {
            return modifier.hasPrefix("uturn") ? "uturn" : modifier.replacingOccurrences(of: "-", with: " ")
        }
        if maneuver.hasSuffix("left") { return "left" }
        if maneuver.hasSuffix("right") { return "right" }
        if maneuver == "straight" { return "straight" }
        return nil
    }

    /// HTML instructions as plain text: tags dropped, the common entities decoded.
    static func plainText(_ html: String) -> String {
        var text = ""
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
                if !text.isEmpty, text.last != " " { text.append(" ") }
            } else if character == ">" {
                inTag = false
            } else if !inTag {
                text.append(character)
            }
        }
        for (entity, value) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"),
                                ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: value)
        }
        return text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

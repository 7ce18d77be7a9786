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
        var stepLines: [Coordinate] = []
        for (l, leg) in legs.enumerated() {
            distance += leg["distance"]?["value"]?.double ?? 0
            duration += leg["duration"]?["value"]?.double ?? 0
            for (s, step) in (leg["steps"]?.array ?? []).enumerated() {
                let stepPath = "\(path).legs[\(l)].steps[\(s)]"
                let line = try polyline(step["polyline"]?["points"], path: stepPath + ".polyline.points",
                                        precision: 5)
                stepLines.append(contentsOf: stepLines.last == line.first ? line.dropFirst() : line[...])
                var location: Coordinate?
                if let lat = step["start_location"]?["lat"]?.double, let lng = step["start_location"]?["lng"]?.double {
                    location = try self.location(longitude: lng, latitude: lat, path: stepPath + ".start_location")
                }
                let maneuver = step["maneuver"]?.string
                addStep(Step(routeIndex: r, line: line,
                             instruction: step["html_instructions"]?.string.map(Self.plainText),
                             name: nil, distance: step["distance"]?["value"]?.double,
                             duration: step["duration"]?["value"]?.double,
                             type: maneuver ?? (stepIndex == 0 ? "depart" : nil),
                             modifier: maneuver.flatMap(Self.googleModifier), bearing: nil, location: location),
                        index: stepIndex, origin: stepPath)
                stepIndex += 1
            }
        }
        if parts.isEmpty { parts = [stepLines] }
        try addRoute(index: r, parts: parts, distance: legs.isEmpty ? nil : distance,
                     duration: legs.isEmpty ? nil : duration, summary: route["summary"]?.string, provider: "google",
                     origin: path)
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

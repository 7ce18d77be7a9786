import RouteTilesInput
import RouteTilesModel

/// How a route is laid out in a store's row, the same for every store: the key as text, the properties as a JSON
/// object, the lines as Well-Known Binary, and the layer, kind and geodesic flag in columns of their own.
package enum StoredRouteCodec {
    /// The key of a route id: a number in decimal, a string as it is.
    package static func key(for id: RouteID) -> String {
        switch id {
        case let .number(n): return String(n)
        case let .string(s): return s
        }
    }

    /// The route id a key stands for: a number when the key is a number written as RouteTiles writes one
    /// ("42", not "042" or "+42"), else the string.
    package static func id(forKey key: String) -> RouteID {
        if let n = UInt64(key), String(n) == key { return .number(n) }
        return .string(key)
    }

    /// The properties as a compact JSON object, in the route's order.
    package static func propertiesJSON(_ properties: [Property]) -> String {
        JSONValue.object(properties.map { JSONValue.Member(key: $0.key, value: jsonValue($0.value)) }).compactText
    }

    static func jsonValue(_ value: PropertyValue) -> JSONValue {
        switch value {
        case let .string(s): return .string(s)
        case let .bool(b): return .bool(b)
        case let .int(i): return .number(JSONNumber(text: String(i), value: Double(i), isInteger: true))
        case let .uint(u): return .number(JSONNumber(text: String(u), value: Double(u), isInteger: true))
        case let .double(d):
            // Properties come from JSON, CSV or directions, so they are finite; a non-finite one has no JSON form.
            guard d.isFinite else { return .string("\(d)") }
            return .number(JSONNumber(text: "\(d)", value: d, isInteger: false))
        }
    }

    /// The kind as the `kind` column holds it.
    package static func kindName(_ kind: RouteKind) -> String { kind == .line ? "line" : "point" }

    /// The route a row makes, or what is wrong with it. `kind` nil takes the kind from the geometry; `properties`
    /// nil or empty is no properties. `tail` is what was appended to the line since it was stored
    /// (`AppendedTails`): it ends the last part, with `tailTimes` when the line has times (M). `trimmed` is the
    /// row's `Route.trimmed`.
    package static func route(key: String, version: Int64, created: Int64, properties: String?, wkb: [UInt8]?, layer: String?,
                             kind: String?, geodesic: Bool, tail: [Coordinate] = [], tailTimes: [Int64]? = nil,
                             lastFix: Double? = nil, trimmed: Int = 0) -> StoredRow {
        func bad(_ message: String) -> StoredRow { .bad(RouteRowProblem(key: key, version: version, message: message)) }
        var parsed: (properties: [Property], geodesic: Bool) = ([], false)
        if let properties, !properties.isEmpty {
            switch parseProperties(properties) {
            case let .success(value): parsed = value
            case let .failure(problem): return bad("properties: \(problem.message)")
            }
        }
        guard let wkb, !wkb.isEmpty else { return bad("the geometry is null") }
        let geometry: WellKnownBinary.Geometry
        var times: [Int64]?
        do {
            (geometry, times) = try WellKnownBinary.decodeTimed(wkb)
        } catch {
            return bad("geometry: \(error.message)")
        }
        if !tail.isEmpty {
            switch (times != nil, tailTimes) {
            case (true, let added?) where added.count == tail.count: times?.append(contentsOf: added)
            case (false, nil): break
            case (true, _): return bad("the line has times (M) and its appended positions have none")
            case (false, _?): return bad("the line has no times (M) and its appended positions have some")
            }
        }
        let parts: [[Coordinate]]
        let routeKind: RouteKind
        switch geometry {
        case let .lines(lines):
            guard kind == nil || kind == "line" else { return bad("kind '\(kind ?? "")' does not fit a line geometry") }
            guard !lines.isEmpty else { return bad("the geometry is empty") }
            for (index, line) in lines.enumerated() where line.count < 2 {
                return bad("part \(index) of the line has \(line.count) position\(line.count == 1 ? "" : "s"); a line needs two or more")
            }
            parts = tail.isEmpty ? lines : Array(lines.dropLast()) + [lines[lines.count - 1] + tail]
            routeKind = .line
        case let .points(points):
            guard kind == nil || kind == "point" else { return bad("kind '\(kind ?? "")' does not fit a point geometry") }
            guard !points.isEmpty else { return bad("the geometry is empty") }
            guard tail.isEmpty else { return bad("positions were appended to a set of points") }
            parts = points.map { [$0] }
            routeKind = .point
        }
        for (partIndex, part) in parts.enumerated() {
            for (index, coordinate) in part.enumerated() {
                if let problem = CoordinateLimits.problem(with: coordinate) {
                    return bad("coordinate \(index) of part \(partIndex): \(problem)")
                }
            }
        }
        var route = Route(id: id(forKey: key), properties: parsed.properties, parts: parts, origin: "route \(key)",
                          geodesic: geodesic || parsed.geodesic, layer: layer, kind: routeKind, times: times)
        route.trimmed = max(trimmed, 0)
        if let problem = route.timeProblem() { return bad("times (M): \(problem)") }
        return .route(StoredRoute(key: key, route: route, version: version, created: created, lastFix: lastFix))
    }

    struct PropertiesProblem: Error {
        var message: String
    }

    /// Properties from JSON text, read as the GeoJSON reader reads a feature's `properties`.
    static func parseProperties(_ text: String) -> Result<(properties: [Property], geodesic: Bool), PropertiesProblem> {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer)
            do {
                let value = try scanner.readValue()
                try scanner.finish()
                switch value {
                case let .object(members): return .success(JSONScanner.properties(from: members))
                case .null: return .success(([], false))
                default: return .failure(PropertiesProblem(message: "expected a JSON object, found \(value.kindDescription)"))
                }
            } catch {
                return .failure(PropertiesProblem(message: "\(error)"))
            }
        }
    }
}

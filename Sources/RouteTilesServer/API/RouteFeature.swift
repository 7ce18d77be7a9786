import RouteTiles

/// `GET /routes/{id}`: a stored route as a GeoJSON Feature (`RouteFeature` in `openapi.json`): its id, its
/// properties (with `geodesic: true` for a great-circle route) and a LineString, or a MultiLineString for a route
/// of several parts. A route with times has them as `properties.coordTimes`: one ISO 8601 UTC text per position, the
/// parts flattened in order, the form GPX and KML converters write and the GeoJSON reader takes back.
package struct RouteFeature: Encodable, Sendable {
    var route: Route

    package init(_ route: Route) {
        self.route = route
    }

    /// The property that holds a route's times.
    static let timesKey = "coordTimes"

    private struct Geometry: Encodable {
        var type: String
        var coordinates: GeoJSONCoordinates
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode("Feature", forKey: MemberKey("type"))
        switch route.id {
        case let .number(n)?: try container.encode(n, forKey: MemberKey("id"))
        case let .string(s)?: try container.encode(s, forKey: MemberKey("id"))
        case nil: break
        }
        var properties = container.nestedContainer(keyedBy: MemberKey.self, forKey: MemberKey("properties"))
        for property in route.properties where !(route.geodesic && property.key == "geodesic")
            && !(route.times != nil && property.key == Self.timesKey) {
            try properties.encode(property.value, forKey: MemberKey(property.key))
        }
        if route.geodesic { try properties.encode(true, forKey: MemberKey("geodesic")) }
        if let times = route.times { try properties.encode(times.map(TimeValue.iso), forKey: MemberKey(Self.timesKey)) }
        let lines = route.parts.map { part in part.map { [$0.longitude, $0.latitude] } }
        let geometry = lines.count == 1
            ? Geometry(type: "LineString", coordinates: .positions(lines[0]))
            : Geometry(type: "MultiLineString", coordinates: .lines(lines))
        try container.encode(geometry, forKey: MemberKey("geometry"))
    }
}

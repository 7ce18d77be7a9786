import RouteTiles

/// `GET /routes/{id}`: a stored route as a GeoJSON Feature (`RouteFeature` in `openapi.json`): its id, its
/// properties (with `geodesic: true` for a great-circle route) and a LineString, or a MultiLineString for a route
/// of several parts.
package struct RouteFeature: Encodable, Sendable {
    var route: Route

    package init(_ route: Route) {
        self.route = route
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct Geometry: Encodable {
        var type: String
        var coordinates: GeoJSONCoordinates
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("Feature", forKey: Key(stringValue: "type"))
        switch route.id {
        case let .number(n)?: try container.encode(n, forKey: Key(stringValue: "id"))
        case let .string(s)?: try container.encode(s, forKey: Key(stringValue: "id"))
        case nil: break
        }
        var properties = container.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: "properties"))
        for property in route.properties where !(route.geodesic && property.key == "geodesic") {
            try properties.encode(property.value, forKey: Key(stringValue: property.key))
        }
        if route.geodesic { try properties.encode(true, forKey: Key(stringValue: "geodesic")) }
        let lines = route.parts.map { part in part.map { [$0.longitude, $0.latitude] } }
        let geometry = lines.count == 1
            ? Geometry(type: "LineString", coordinates: .positions(lines[0]))
            : Geometry(type: "MultiLineString", coordinates: .lines(lines))
        try container.encode(geometry, forKey: Key(stringValue: "geometry"))
    }
}

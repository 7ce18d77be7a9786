import RouteTiles

/// `GET /routes/{id}`: a stored route as a GeoJSON Feature (`RouteFeature` in `openapi.json`): its id, its
/// properties (with `geodesic: true` for a great-circle route) and a LineString, or a MultiLineString for a route
/// of several parts.
package struct RouteFeature: Encodable, Sendable {
    var route: Route

    package init(_ route: Route) {
        self.route = route
    }

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
        for property in route.properties where !(route.geodesic && property.key == "geodesic") {
            try properties.encode(property.value, forKey: MemberKey(property.key))
        }
        if route.geodesic { try properties.encode(true, forKey: MemberKey("geodesic")) }
        let lines = route.parts.map { part in part.map { [$0.longitude, $0.latitude] } }
        let geometry = lines.count == 1
            ? Geometry(type: "LineString", coordinates: .positions(lines[0]))
            : Geometry(type: "MultiLineString", coordinates: .lines(lines))
        try container.encode(geometry, forKey: MemberKey("geometry"))
    }
}

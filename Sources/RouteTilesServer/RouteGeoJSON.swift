import Foundation
import RouteTiles

/// A stored route as a GeoJSON Feature, for `GET /routes/{id}`.
enum RouteGeoJSON {
    static func feature(_ route: Route) -> [String: Any] {
        var properties: [String: Any] = [:]
        for property in route.properties { properties[property.key] = json(property.value) }
        if route.geodesic { properties["geodesic"] = true }
        let lines = route.parts.map { part in part.map { [$0.longitude, $0.latitude] } }
        let geometry: [String: Any] = lines.count == 1
            ? ["type": "LineString", "coordinates": lines[0]]
            : ["type": "MultiLineString", "coordinates": lines]
        var feature: [String: Any] = ["type": "Feature", "properties": properties, "geometry": geometry]
        switch route.id {
        case let .number(n)?: feature["id"] = n
        case let .string(s)?: feature["id"] = s
        case nil: break
        }
        return feature
    }

    static func json(_ value: PropertyValue) -> Any {
        switch value {
        case let .string(s): return s
        case let .double(d): return d
        case let .int(i): return i
        case let .uint(u): return u
        case let .bool(b): return b
        }
    }
}

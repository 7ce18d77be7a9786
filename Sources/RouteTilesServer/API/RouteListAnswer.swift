import RouteTiles

/// `GET /routes` (`RouteList` in `openapi.json`): the routes in feature order, at the generation shown (none for a
/// reader limited to some groups: it counts every group's changes).
struct RouteListAnswer: Encodable, Sendable {
    var generation: UInt64?
    var routes: [Entry]

    /// One route of the list, as the viewer's list shows it.
    struct Entry: Encodable, Sendable {
        /// The route's key, as in `/routes/{id}`.
        var id: String
        /// Its feature id in the tiles, for `feature-state`.
        var fid: UInt64
        var layer: String
        /// `line` or `point`.
        var kind: String
        var name: String?
        /// On the WGS84 ellipsoid, in metres to 0.1.
        var lengthMetres: Double
        var durationSeconds: Double?
        /// For a route with times, when its first position was recorded (ISO 8601 UTC).
        var firstTime: String?
        /// When its last position was recorded, or (without times) when it arrived by an append.
        var lastTime: String?
        var points: Int
        /// West, south, east, north in degrees (to 1e-6), longitudes unwrapped across the antimeridian.
        var bbox: [Double]?
        var color: String?
        /// A directions route's steps, in order.
        var steps: [Step]?

        enum CodingKeys: String, CodingKey {
            case id, fid, layer, kind, name, points, bbox, color, steps
            case lengthMetres = "length_m", durationSeconds = "duration_s", firstTime = "first_time"
            case lastTime = "last_time"
        }
    }

    /// One step of a directions route: what its step line tells (`instruction`, `name`, `distance_m`,
    /// `duration_s`, `bbox`) merged with its maneuver point (`type`, `modifier`, `bearing`, `location`), by `index`.
    /// The told values are the input's properties, as read.
    struct Step: Encodable, Sendable {
        static let propertyKeys: Set<String> = ["instruction", "name", "distance_m", "duration_s", "type", "modifier",
                                                "bearing"]

        var index: Int64
        /// Values of `propertyKeys`, by key.
        var told: [String: PropertyValue] = [:]
        /// Longitude, latitude.
        var location: [Double]?
        var bbox: [Double]?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MemberKey.self)
            try container.encode(index, forKey: MemberKey("index"))
            for (key, value) in told { try container.encode(value, forKey: MemberKey(key)) }
            try container.encodeIfPresent(location, forKey: MemberKey("location"))
            try container.encodeIfPresent(bbox, forKey: MemberKey("bbox"))
        }
    }
}

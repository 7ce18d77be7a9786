import RouteTiles

/// `GET /routes/{id}/position?at=T`: where a route was at a time, as a GeoJSON Point Feature (`PositionFeature` in
/// `openapi.json`) with `time` (ISO 8601 UTC), `bearing` (degrees), `speed` (m/s, to a tenth) and `part`.
struct PositionFeature: Encodable, Sendable {
    var key: String
    var place: TimedTrack.Place

    private struct Point: Encodable {
        var type = "Point"
        var coordinates: [Double]
    }

    private struct Properties: Encodable {
        var time: String
        var bearing: Double
        var speed: Double
        var part: Int
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode("Feature", forKey: MemberKey("type"))
        try container.encode(key, forKey: MemberKey("id"))
        try container.encode(Point(coordinates: [place.position.longitude, place.position.latitude]),
                             forKey: MemberKey("geometry"))
        try container.encode(Properties(time: TimeValue.iso(place.time), bearing: (place.bearing * 10).rounded() / 10,
                                        speed: (place.speed * 10).rounded() / 10, part: place.part),
                             forKey: MemberKey("properties"))
    }
}

/// The `coordinates` of a GeoJSON geometry, at the depth of its type: a position (Point), positions (MultiPoint,
/// LineString), or lists of positions (MultiLineString).
package enum GeoJSONCoordinates: Encodable, Sendable {
    case position([Double])
    case positions([[Double]])
    case lines([[[Double]]])

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .position(value): try container.encode(value)
        case let .positions(value): try container.encode(value)
        case let .lines(value): try container.encode(value)
        }
    }
}

/// The identifier a route carried in its input, if any.
public enum RouteID: Hashable, Sendable {
    /// A non-negative integer id, used as the tile feature id as it is.
    case number(UInt64)
    /// Any other id (a string, or a number that is negative or fractional, in its textual form).
    case string(String)
}

/// A route as read from input: an id, its properties, and one or more lines of lon/lat positions.
///
/// Every part of a line route has at least two positions; readers reject or skip anything less.
public struct Route: Sendable {
    /// The route's id in its input, if any; it decides the feature id in tiles.
    public var id: RouteID?
    /// The route's attributes, written as feature properties, in input order.
    public var properties: [Property]
    /// The route's lines (or points), each a list of positions.
    public var parts: [[Coordinate]]
    /// Where the route came from, for messages: "file.geojson feature 3" or "file.csv line 12".
    public var origin: String
    /// Follow great circles between positions (`--geodesic`, or the property `"geodesic": true`).
    public var geodesic: Bool
    /// The vector tile layer of the route's features; nil: the tiling options' layer (`routes`).
    public var layer: String?
    /// Lines, or points (a maneuver): a point route has parts of one position each.
    public var kind: RouteKind
    /// When each position was recorded (or, for directions, is planned), in milliseconds since 1970-01-01T00:00:00Z
    /// (`TimeValue`): one per position, with the parts flattened in order (the layout of GeoJSON's
    /// `properties.coordTimes`). Nil: the route has no times. A route has a time on every position or on none,
    /// never going back (`timeProblem()`).
    public var times: [Int64]?
    /// How many positions retention has trimmed from the start of the first part since the route was last written
    /// whole (0 for a route as read, or put): the phase of the tiling's simplification blocks, so that a trim of
    /// any length leaves every later block, and the tiles drawn from it, as they were (`TrackRetention`). Stores
    /// keep it with the route.
    public var trimmed: Int = 0

    /// A route made of `parts`.
    /// - Parameters:
    ///   - id: The id from the input, if any.
    ///   - properties: The attributes, in the order to write them.
    ///   - parts: The route's lines of positions (or, for a point route, parts of one position each).
    ///   - origin: Where the route came from, for messages.
    ///   - geodesic: Whether segments follow great circles.
    ///   - layer: The layer to draw the route in; nil for the tiling options' layer.
    ///   - kind: Lines or points.
    ///   - times: A time per position, parts flattened in order, or nil.
    public init(id: RouteID? = nil, properties: [Property] = [], parts: [[Coordinate]], origin: String = "",
                geodesic: Bool = false, layer: String? = nil, kind: RouteKind = .line, times: [Int64]? = nil) {
        self.id = id
        self.properties = properties
        self.parts = parts
        self.origin = origin
        self.geodesic = geodesic
        self.layer = layer
        self.kind = kind
        self.times = times
    }

    /// The number of positions in all parts.
    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }

    /// What is wrong with the route's times, naming the position (`part 0, position 5: …`); nil when it has none,
    /// or one per position within 1970–9999, each at or after the one before it (parts are runs of one timeline).
    public func timeProblem() -> String? {
        guard let times else { return nil }
        let count = pointCount
        guard times.count == count else { return "\(times.count) times for \(count) positions" }
        var index = 0
        for (partIndex, part) in parts.enumerated() {
            for position in part.indices {
                let time = times[index]
                if time < TimeValue.earliest || time > TimeValue.latest {
                    return "part \(partIndex), position \(position): time \(time) ms is outside 1970-01-01 to 9999-12-31"
                }
                if index > 0, time < times[index - 1] {
                    return "part \(partIndex), position \(position): time \(TimeValue.iso(time)) is before the one "
                        + "before it (\(TimeValue.iso(times[index - 1])))"
                }
                index += 1
            }
        }
        return nil
    }

    /// The times of part `index` (an empty slice for a route without times).
    public func times(ofPart index: Int) -> ArraySlice<Int64> {
        guard let times else { return [] }
        var start = 0
        for part in parts.prefix(index) { start += part.count }
        let end = start + (parts.indices.contains(index) ? parts[index].count : 0)
        guard end <= times.count else { return [] }
        return times[start..<end]
    }
}

/// Whether a route is drawn as lines or as points.
public enum RouteKind: Sendable, Equatable {
    /// Each part is a line of two or more positions.
    case line
    /// Each part is one position.
    case point
}

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
    public var id: RouteID?
    public var properties: [Property]
    public var parts: [[Coordinate]]
    /// Where the route came from, for messages: "file.geojson feature 3" or "file.csv line 12".
    public var origin: String
    /// Follow great circles between positions (`--geodesic`, or the property `"geodesic": true`).
    public var geodesic: Bool
    /// The vector tile layer of the route's features; nil: the tiling options' layer (`routes`).
    public var layer: String?
    /// Lines, or points (a maneuver): a point route has parts of one position each.
    public var kind: RouteKind

    public init(id: RouteID? = nil, properties: [Property] = [], parts: [[Coordinate]], origin: String = "",
                geodesic: Bool = false, layer: String? = nil, kind: RouteKind = .line) {
        self.id = id
        self.properties = properties
        self.parts = parts
        self.origin = origin
        self.geodesic = geodesic
        self.layer = layer
        self.kind = kind
    }

    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }
}

/// Whether a route is drawn as lines or as points.
public enum RouteKind: Sendable, Equatable {
    case line
    case point
}

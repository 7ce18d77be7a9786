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

    /// A route made of `parts`.
    /// - Parameters:
    ///   - id: The id from the input, if any.
    ///   - properties: The attributes, in the order to write them.
    ///   - parts: The route's lines of positions (or, for a point route, parts of one position each).
    ///   - origin: Where the route came from, for messages.
    ///   - geodesic: Whether segments follow great circles.
    ///   - layer: The layer to draw the route in; nil for the tiling options' layer.
    ///   - kind: Lines or points.
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

    /// The number of positions in all parts.
    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }
}

/// Whether a route is drawn as lines or as points.
public enum RouteKind: Sendable, Equatable {
    /// Each part is a line of two or more positions.
    case line
    /// Each part is one position.
    case point
}

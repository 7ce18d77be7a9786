/// The identifier a route carried in its input, if any.
public enum RouteID: Hashable, Sendable {
    /// A non-negative integer id, used as the tile feature id as it is.
    case number(UInt64)
    /// Any other id (a string, or a number that is negative or fractional, in its textual form).
    case string(String)
}

/// A route as read from input: an id, its properties, and one or more lines of lon/lat positions.
///
/// Every part has at least two positions; readers reject or skip anything less.
public struct Route: Sendable {
    public var id: RouteID?
    public var properties: [Property]
    public var parts: [[Coordinate]]
    /// Where the route came from, for messages: "file.geojson feature 3" or "file.csv line 12".
    public var origin: String
    /// Follow great circles between positions (`--geodesic`, or the property `"geodesic": true`).
    public var geodesic: Bool

    public init(id: RouteID? = nil, properties: [Property] = [], parts: [[Coordinate]], origin: String = "",
                geodesic: Bool = false) {
        self.id = id
        self.properties = properties
        self.parts = parts
        self.origin = origin
        self.geodesic = geodesic
    }

    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }
}

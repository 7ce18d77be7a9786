import RouteTilesModel

/// One entry of a store's change feed: which route changed, how, and in which order.
///
/// A change does not carry the route: the reader reads the route as it is now, so it converges however many changes
/// it missed. An append made through RouteTiles also carries its points and the version it extended, so a reader
/// whose copy is that version extends it without reading the whole route again.
public struct RouteChange: Sendable, Equatable {
    /// What happened to the route.
    public enum Operation: String, Sendable {
        /// The route was created.
        case insert
        /// The route was replaced.
        case update
        /// The route was removed.
        case delete
        /// Positions were added to the end of the route's last part.
        case append
    }

    /// The change's position in the store's feed; sequences only grow.
    public var sequence: Int64
    /// The key of the route that changed.
    public var key: String
    /// What happened to the route.
    public var operation: Operation
    /// For an append: the version of the route it extended.
    public var baseVersion: Int64?
    /// For an append: the positions added to the end of the last part.
    public var points: [Coordinate]
    /// For an append: when the store committed it (Unix seconds), which the position layer shows as the time of
    /// the route's last fix; the same on every replica, since it is read from the store.
    public var time: Double?
    /// For an append to a route with times: the time of each point (milliseconds since 1970), in order, each after
    /// the route's last; nil for a route without times.
    public var times: [Int64]?

    /// For an append, the time of the route's last fix as the position layer shows it: the device's (its last
    /// point's time) when the append has times, else when the store committed it.
    public var fixTime: Double? {
        times?.last.map { Double($0) / 1000 } ?? time
    }

    /// For an append to a route with times: `times` in seconds since 1970, as the tiler takes them.
    public var timeSeconds: [Double]? {
        times?.map { Double($0) / 1000 }
    }

    /// A change of the route stored under `key`.
    public init(sequence: Int64, key: String, operation: Operation, baseVersion: Int64? = nil,
                points: [Coordinate] = [], time: Double? = nil, times: [Int64]? = nil) {
        self.sequence = sequence
        self.key = key
        self.operation = operation
        self.baseVersion = baseVersion
        self.points = points
        self.time = time
        self.times = times
    }
}

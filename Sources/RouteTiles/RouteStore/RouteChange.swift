/// One entry of a store's change feed: which route changed, how, and in which order.
///
/// A change does not carry the route: the reader reads the route as it is now, so it converges however many changes
/// it missed. An append made through RouteTiles also carries its points and the version it extended, so a reader
/// whose copy is that version extends it without reading the whole route again.
public struct RouteChange: Sendable, Equatable {
    public enum Operation: String, Sendable {
        case insert, update, delete, append
    }

    public var sequence: Int64
    public var key: String
    public var operation: Operation
    /// For an append: the version of the route it extended.
    public var baseVersion: Int64?
    /// For an append: the positions added to the end of the last part.
    public var points: [Coordinate]

    public init(sequence: Int64, key: String, operation: Operation, baseVersion: Int64? = nil,
                points: [Coordinate] = []) {
        self.sequence = sequence
        self.key = key
        self.operation = operation
        self.baseVersion = baseVersion
        self.points = points
    }
}

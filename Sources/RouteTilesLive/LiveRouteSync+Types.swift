import RouteTilesModel
import RouteTilesRouteStore

extension LiveRouteSync {
    /// What one application did: the change to the routes, the sequences it covered, and the rows skipped.
    public struct Applied: Sendable {
        /// What the routes did: the keys changed and the tiles invalidated.
        public var change: LiveRouteSet.Change
        /// The store sequences applied.
        public var sequences: ClosedRange<Int64>
        /// The number of changes of the feed applied.
        public var changeCount: Int
        /// Rows that did not make a route, skipped.
        public var badRows: [RouteRowProblem]
        /// From the first call to the store to the new snapshot.
        public var duration: Duration = .zero

        /// This application followed by `b`, as one.
        func merging(_ b: Applied) -> Applied {
            let a = self
            var change = b.change
            change.keys = (a.change.keys + b.change.keys).uniqued()
            change.formUnion(tilesOf: a.change)
            return Applied(change: change, sequences: a.sequences.lowerBound...b.sequences.upperBound,
                           changeCount: a.changeCount + b.changeCount, badRows: a.badRows + b.badRows)
        }
    }

    /// The outcome of a write.
    public enum WriteOutcome: Sendable {
        /// Committed with these sequences and applied here; `change` is what this server's routes did.
        case applied(change: LiveRouteSet.Change, keys: [String], sequences: ClosedRange<Int64>?)
        /// Committed, but applying it here failed (the store went away after the commit); the feed brings it later.
        case committedNotApplied(keys: [String], sequences: ClosedRange<Int64>?, error: String)
        /// No route is stored under `key`: nothing was written.
        case notFound(key: String)
        /// An append to a route of points: nothing was written.
        case notALine(key: String)
        /// Positions without times sent to a route with a time on every position, or the other way round: nothing
        /// was written.
        case timesDiffer(key: String, routeHasTimes: Bool)
    }

    /// How far this server is, for `/health` and the metrics.
    public struct Status: Sendable {
        /// The last sequence applied.
        public var applied: Int64
        /// The newest sequence seen in the store.
        public var newest: Int64
        /// Whether the last call to the store succeeded.
        public var reachable: Bool
        /// The last store error, if the last call failed.
        public var lastError: String?
        /// How many times the store was reached again after failing.
        public var reconnects: Int
        /// Rows skipped because they did not make a route, since the start.
        public var badRows: Int
        /// Group commits made by this server (transactions of its own writes), since the start.
        public var commits: Int = 0
        /// The writes those commits carried: `writesCommitted / commits` writes shared each commit.
        public var writesCommitted: Int = 0
    }
}

import RouteTilesModel
import RouteTilesTiling

extension LiveRouteSet {
    /// One generation of the routes, ready to cut tiles.
    public struct Snapshot: Sendable {
        package let tilers: RouteTilerSet
        /// The generation this snapshot shows; every change makes a greater one.
        public let generation: UInt64
        /// The number of routes in the snapshot.
        public let routeCount: Int
        /// The number of projected vertices of all the routes.
        public let pointCount: Int

        /// The uncompressed MVT of one tile, or nil when no route has a feature in it; `TileAddressError` when z/x/y
        /// names no tile.
        public func tile(z: Int, x: Int, y: Int) throws(TileAddressError) -> [UInt8]? {
            try tilers.tile(z: z, x: x, y: y)
        }

        /// The uncompressed MVT of one tile of the time window `window` (`RouteTiler.tile(z:x:y:window:)`): the
        /// routes with times, cut to it; no position layer.
        public func tile(z: Int, x: Int, y: Int, window: TimeWindow) throws(TileAddressError) -> [UInt8]? {
            try tilers.tile(z: z, x: x, y: y, window: window)
        }

        /// The uncompressed MVT of one tile, cut to `window` when one is given (no position layer then), of the
        /// routes of `groups` alone when given (`RouteGroup`).
        public func tile(z: Int, x: Int, y: Int, window: TimeWindow?, groups: GroupScope?) throws(TileAddressError)
            -> [UInt8]?
        {
            try tilers.tile(z: z, x: x, y: y, window: window, groups: groups)
        }

        /// The uncompressed MVT of WorldCRS84Quad tile `tile` (EPSG:4326), cut to `window` and of the routes of
        /// `groups` when given, as the Web Mercator tiles are; nil when no route has a feature in it or `tile` names
        /// no tile (`CRS84TileID.isValid`).
        public func tile(_ tile: CRS84TileID, window: TimeWindow? = nil, groups: GroupScope? = nil) -> [UInt8]? {
            tilers.tile(tile, window: window, groups: groups)
        }
    }

    /// What a change did.
    public struct Change: Sendable {
        /// The keys of the routes it added, replaced, extended or removed.
        public var keys: [String]
        /// The tiles whose content changed, sorted.
        public var invalidated: [TileID]
        /// The generation it produced.
        public var generation: UInt64
        /// Tiles under which every tile, down to the greatest zoom, counts as changed too, sorted: an append whose
        /// new segments are drawn in more tiles than `TilingOptions.appendTileLimit` lists them only down to a zoom.
        /// Usually empty.
        public var subtrees: [TileID] = []
        /// How many of the tiles it invalidated were cached (`LiveRouteSync.attach(_:)`) and dropped.
        public var cachedTilesDropped = 0

        /// A change of `keys` that invalidated `invalidated` and every tile under `subtrees`.
        public init(keys: [String], invalidated: [TileID], generation: UInt64, subtrees: [TileID] = []) {
            self.keys = keys
            self.invalidated = invalidated
            self.generation = generation
            self.subtrees = subtrees
        }

        /// Takes in the tiles and subtrees of `other`, a change applied with this one.
        mutating func formUnion(tilesOf other: Change) {
            cachedTilesDropped += other.cachedTilesDropped
            invalidated = TileID.sorted(Set(invalidated).union(other.invalidated))
            if !other.subtrees.isEmpty { subtrees = TileID.sorted(Set(subtrees).union(other.subtrees)) }
        }
    }

    /// One edit of a batch (`apply(_:)`).
    package enum Edit: Sendable {
        /// Adds the route, or replaces the one stored under its key; a route without an id gets the next number.
        /// `lastFix` is when its last position arrived, if known.
        case put(Route, lastFix: Double? = nil)
        /// Removes the route stored under `key`, if any.
        case remove(key: String)
        /// Extends the last part of the route stored under `key`, if any; `time` is when the points arrived (the
        /// device's time of the last for a route with times), and `times` each point's time in seconds since 1970,
        /// for a route with times.
        case append(key: String, points: [Coordinate], time: Double? = nil, times: [Double]? = nil)
    }
}

import RouteTilesModel
import RouteTilesRouteStore
import RouteTilesTiling

/// A route as the set holds it: its tiler (the positions projected), and the route as read but for its
/// positions, which its store keeps (`RouteStore.rows`): holding them here too would double the memory of
/// every position.
struct LiveRouteEntry: Sendable {
    /// The route without its positions (`parts` empty).
    var header: Route
    /// The last position of its last part, where an append joins, and the one before it (for the bearing).
    var lastPosition: Coordinate?
    var previousPosition: Coordinate?
    /// When the last position arrived (Unix seconds), if the store recorded it (`StoredRoute.lastFix`).
    var lastFix: Double?
    /// For a route with times, the time of `previousPosition` (Unix seconds): with `lastFix`, the speed of the
    /// last segment in the position layer.
    var previousFix: Double?
    /// The time of the first position (milliseconds since 1970), for a route with times: what retention by time
    /// looks at. Appends leave it as it is; a trim writes the route again.
    var firstTime: Int64?
    var pointCount: Int
    var tiler: RouteTiler
    /// The chunk of the `ChunkTable` that holds the route, and its slot in that chunk.
    var chunk = 0
    var slot = 0
    /// Nil until first needed, or until `fillCovers` reaches it: a set loaded at start-up answers tiles at once
    /// and finds its covers (every tile of every route) afterwards.
    var cover: RouteCover?
    /// The tiles the last append drew in, when a few, all in `cover` (when there is one): the next fix's segment
    /// starts where that one ended and is mostly drawn in the same tiles, which need not be looked up in the
    /// set again.
    var lastDrawn: [TileID] = []

    /// The time of a route's last fix for the position layer: the device's (its last position's time) when the
    /// route has times, else when the store recorded its last append (`stored`).
    static func fixTime(of route: Route, stored: Double?) -> Double? {
        route.times?.last.map { Double($0) / 1000 } ?? stored
    }

    init(route: Route, lastFix: Double?, options: TilingOptions) {
        self.init(route: route, lastFix: lastFix, tiler: RouteTiler(routes: [route], options: options))
        cover = RouteCover(of: tiler)
    }

    /// Whether `route` may be this route less some leading positions with its blocks where they were (a bounded
    /// track's trim, `Route.trimmed`): the cheap signs of
    /// `RouteTable.trim`, read before a tiler of `route` is built.
    func mayBeTrimmed(to route: Route) -> Bool {
        route.kind == .line && route.parts.count == 1 && pointCount > route.pointCount
            && route.parts.last?.last == lastPosition && !route.geodesic
            && (header.trimmed % TrackRetention.blockStep + pointCount - route.pointCount) % TrackRetention.blockStep
                == route.trimmed % TrackRetention.blockStep
    }

    /// For a route with times, the time of its next-to-last position in Unix seconds (`previousFix`).
    static func previousFixTime(of route: Route) -> Double? {
        route.times.flatMap { $0.count >= 2 ? Double($0[$0.count - 2]) / 1000 : nil }
    }

    init(route: Route, lastFix: Double?, tiler: RouteTiler) {
        header = route
        header.parts = []
        header.times = nil
        lastPosition = route.parts.last?.last
        previousPosition = route.parts.last.flatMap { $0.count >= 2 ? $0[$0.count - 2] : nil }
        self.lastFix = lastFix
        previousFix = previousPosition == nil ? nil : Self.previousFixTime(of: route)
        firstTime = route.times?.first
        pointCount = route.pointCount
        self.tiler = tiler
        cover = nil
    }

    /// Adds to the cover the tiles an append drew in. A fix's few tiles are compared with those the append
    /// before drew in (a few dozen, mostly the same), and only the new ones are hashed into the cover; a long
    /// segment's tiles are added to the cover's set as they come, in time proportional to their number.
    mutating func coverGrows(by appended: AppendedTiles) {
        guard cover != nil else { return }
        let drawn = appended.drawn
        if drawn.count <= Self.fewTiles && lastDrawn.count <= Self.fewTiles {
            for tile in drawn where !lastDrawn.contains(tile) { cover?.tiles.insert(tile) }
        } else {
            cover?.tiles.formUnion(drawn)
        }
        if !appended.subtrees.isEmpty { cover?.subtrees.formUnion(appended.subtrees) }
        lastDrawn = drawn.count <= Self.fewTiles ? drawn : []
    }

    /// The most tiles `lastDrawn` keeps: two lists of this length are compared pairwise.
    static let fewTiles = 64

    /// The route's point in the position layer, kept as the route changes (`place(options:)`), so that a
    /// chunk rebuilt for another route's change does not work it out again.
    var position: LivePosition?

    /// Sets `position` from the route as it is now, when the options name a position layer.
    mutating func place(options: TilingOptions) {
        position = options.positionLayer == nil ? nil : currentPosition(options: options)
    }

    /// The route's point in the position layer: line routes only.
    private func currentPosition(options: TilingOptions) -> LivePosition? {
        guard header.kind == .line, let last = lastPosition,
              let id = tiler.projected.routeInfos.first?.featureID else { return nil }
        return LivePosition(featureID: id, last: last, previous: previousPosition, time: lastFix,
                            previousTime: previousFix, options: options)
    }

    /// The cover, found now if it was not yet.
    var knownCover: RouteCover { cover ?? RouteCover(of: tiler) }
}

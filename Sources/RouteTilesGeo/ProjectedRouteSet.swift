@_spi(Columns) import RouteTilesModel

/// Routes projected once into map-point space, packed for the tiler.
///
/// Every line of every route lives in one set of contiguous arrays (struct of arrays), so the tiler refers to a
/// run of segments by two indexes and never copies points. Line `l` owns the vertices
/// `lineStarts[l] ..< lineStarts[l + 1]`; segment `i` joins vertex `i` to vertex `i + 1` of the same line.
public struct ProjectedRouteSet: Sendable {
    /// What the tiler needs to know of a route besides its geometry.
    package struct RouteInfo: Sendable {
        /// The stable feature id: the same in every tile and zoom.
        package var featureID: UInt64
        package var properties: [Property]
        /// The ellipsoidal length of all the route's lines, in metres.
        package var lengthMetres: Double
        /// The route's lines: `firstLine ..< firstLine + lineCount`.
        package var firstLine: Int
        package var lineCount: Int
        /// Index into `layers`: 0 is the tiling options' layer.
        package var layer: Int = 0
        /// Drawn as points: each line holds one position twice (a zero-length segment), which the cutter writes
        /// as one point.
        package var isPoint: Bool = false
        /// The route has a time on every position: its vertices' times are in `times`.
        package var hasTimes: Bool = false
        /// Positions trimmed from the start of the route's first line (`Route.trimmed`; 0 for a geodesic route,
        /// whose drawn vertices are not its positions): the phase of that line's simplification blocks.
        package var trimmed: Int = 0
    }

    /// Where the block grid of `line` starts: its first vertex, less the positions trimmed from it when it is
    /// its route's first line (`RouteInfo.trimmed`), reduced modulo `blockLength`. Blocks of `blockLength`
    /// vertices are counted from there, so the first block of a trimmed line is a partial one.
    package func blockOrigin(ofLine line: Int, blockLength: Int) -> Int {
        let first = lineStarts[line]
        let info = routeInfos[Int(lineRoute[line])]
        guard info.firstLine == line, info.trimmed > 0 else { return first }
        return first - info.trimmed % blockLength
    }

    /// Map-point x and y per vertex. Shared between a set and the sets appended to it (see `SharedColumn`).
    @_spi(Columns) public internal(set) var xs = SharedColumn<Double>()
    @_spi(Columns) public internal(set) var ys = SharedColumn<Double>()
    /// Distance along the route from its first position, in metres, per vertex (continuing across its lines).
    @_spi(Columns) public internal(set) var distances = SharedColumn<Double>()
    /// When each vertex was recorded, in seconds since 1970, for the routes with times (`RouteInfo.hasTimes`); NaN
    /// for the vertices of a route without times in a set that has some. Empty while no route of the set has times,
    /// so a set without them costs nothing.
    @_spi(Columns) public internal(set) var times = SharedColumn<Double>()
    package internal(set) var lineStarts: [Int] = [0]
    package internal(set) var lineRoute: [Int32] = []
    /// Per route, in input order: its feature id, properties, layer, kind and length (`lineRoute` indexes it).
    package internal(set) var routeInfos: [RouteInfo] = []
    /// The layer names routes asked for, by `RouteInfo.layer`; nil (always first) is the tiling options' layer.
    package internal(set) var layers: [String?] = [nil]
    /// The map-point bounds of every vertex (x may leave `0..<worldSize` for routes across the antimeridian).
    public internal(set) var bounds: MapRect = .empty
    /// Bounds in lon/lat: west, south, east, north (west/east are −180/180 when a route crosses the antimeridian).
    public internal(set) var geographicBounds: BoundingBox?

    /// The number of lines (route parts of at least two positions) in the set.
    public var lineCount: Int { lineRoute.count }
    /// The number of projected vertices in the set, after geodesic densification.
    public var pointCount: Int { xs.count }

    /// An empty set.
    public init() {}

    /// Projects routes in order. Route `i` gets feature id from its numeric id as it is, else a stable 64-bit hash
    /// (FNV-1a) of its string id, else its input index.
    /// Geodesic routes are densified until their drawn line stays within `geodesicTolerance` map points of the
    /// true geodesic (see `GeodesicDensifier`).
    public init(routes input: [Route], geodesicTolerance: Double = GeodesicDensifier.defaultTolerance) {
        let total = input.reduce(0) { $0 + $1.pointCount }
        xs.reserveCapacity(total)
        ys.reserveCapacity(total)
        distances.reserveCapacity(total)
        for (index, route) in input.enumerated() {
            add(route, index: index, geodesicTolerance: geodesicTolerance)
        }
    }

    /// The southern and northern extremes of the positions added, for `geographicBounds`.
    var south = Double.infinity, north = -Double.infinity

    /// Projects one more route, the `index`th of the input (its feature id when it has no id of its own), as
    /// `init(routes:geodesicTolerance:)` does for each: a set built route by route is the same as one built at once.
    public mutating func add(_ route: Route, index: Int, geodesicTolerance: Double = GeodesicDensifier.defaultTolerance) {
        add(route, index: index, drawn: DrawnRoute(route, geodesicTolerance: geodesicTolerance))
    }

    /// Adds a route already drawn (`DrawnRoute`), for a caller that looked at its lines first.
    package mutating func add(_ route: Route, index: Int, drawn: DrawnRoute) {
        let lines = drawn.lines
        let firstVertex = xs.count
        let firstLine = lineRoute.count
        var travelled = 0.0
        let isPoint = route.kind == .point
        for line in lines {
            var previous = line[0]
            for c in line {
                travelled += GeodesicDistance.metres(previous, c)
                previous = c
                let p = WebMercator.project(c)
                xs.append(p.x)
                ys.append(p.y)
                distances.append(travelled)
                bounds.formUnion(p)
                south = min(south, c.latitude)
                north = max(north, c.latitude)
            }
            lineStarts.append(xs.count)
            lineRoute.append(Int32(truncatingIfNeeded: routeInfos.count))
        }
        let lineCount = lineRoute.count - firstLine
        guard lineCount > 0 else { return }
        addTimes(drawn.times, from: firstVertex)
        var layer = 0
        if let name = route.layer {
            if let known = layers.firstIndex(of: name) {
                layer = known
            } else {
                layer = layers.count
                layers.append(name)
            }
        }
        routeInfos.append(RouteInfo(featureID: Self.featureID(for: route.id, index: index),
                                properties: route.properties, lengthMetres: travelled,
                                firstLine: firstLine, lineCount: lineCount, layer: layer, isPoint: isPoint,
                                hasTimes: drawn.times != nil, trimmed: route.geodesic ? 0 : max(route.trimmed, 0)))
        geographicBounds = Self.geographicBounds(of: bounds, south: south, north: north)
    }

    /// The lines a route is drawn as, in order: each part of two or more positions, densified along the geodesic
    /// for a geodesic route and unwrapped across the antimeridian; for a point route, each part's first position
    /// twice (a zero-length segment). A route with none adds nothing to a set.
    public static func drawnLines(of route: Route, geodesicTolerance: Double) -> [[Coordinate]] {
        var untimed = route
        untimed.times = nil
        return DrawnRoute(untimed, geodesicTolerance: geodesicTolerance).lines
    }

    /// Fills `times` for the vertices added from `firstVertex` on: with `lineTimes`, or NaN for a route without
    /// times once the set has some. The first route with times fills the column for the routes before it.
    private mutating func addTimes(_ lineTimes: [[Double]]?, from firstVertex: Int) {
        if let lineTimes {
            if times.count < firstVertex {
                times.reserveCapacity(xs.count)
                for _ in times.count..<firstVertex { times.append(.nan) }
            }
            for line in lineTimes { for time in line { times.append(time) } }
        } else if times.count > 0 {
            for _ in firstVertex..<xs.count { times.append(.nan) }
        }
    }

    /// An empty set whose layers are already `layers` (nil first, then names), in that order: a set that will hold
    /// only some of the routes of another numbers their layers as that one does, so its tiles hold the layers in the
    /// same order.
    package init(layers: [String?]) {
        if let first = layers.first, first == nil {
            self.layers = layers
        } else {
            self.layers = [nil] + layers
        }
    }

    /// Bounds in lon/lat of map-point `bounds` whose positions reach from latitude `south` to `north`; nil when
    /// `bounds` is empty.
    package static func geographicBounds(of bounds: MapRect, south: Double,
                                 north: Double) -> BoundingBox? {
        guard !bounds.isEmpty else { return nil }
        let clampedSouth = max(south, -WebMercator.maxLatitude), clampedNorth = min(north, WebMercator.maxLatitude)
        if bounds.minX < 0 || bounds.maxX > WebMercator.worldSize {
            return BoundingBox(west: -180, south: clampedSouth, east: 180, north: clampedNorth)
        }
        let west = WebMercator.unproject(MapPoint(x: bounds.minX, y: 0)).longitude
        let east = WebMercator.unproject(MapPoint(x: bounds.maxX, y: 0)).longitude
        return BoundingBox(west: west, south: clampedSouth, east: east, north: clampedNorth)
    }

    /// The stable feature id of a route: see `init(routes:)`.
    package static func featureID(for id: RouteID?, index: Int) -> UInt64 {
        switch id {
        case let .number(n)?: return n
        case let .string(s)?: return FNV1a.hash(s)
        case nil: return UInt64(index)
        }
    }

    package func point(_ i: Int) -> MapPoint { MapPoint(x: xs[i], y: ys[i]) }
}

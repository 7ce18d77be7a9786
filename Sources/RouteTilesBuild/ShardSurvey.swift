import Foundation
import RouteTilesGeo
import RouteTilesModel
import RouteTilesTiling

/// The first pass of a sharded build: every route is read once and forgotten, leaving what each shard needs to
/// agree on with the others: the plan (from the number of points per tile, at a fine zoom), the order of the
/// layers, and the metadata of the whole tileset.
public struct ShardSurvey: Sendable {
    /// The tiling options of the build.
    public let options: TilingOptions
    /// The zoom at which points are counted: the plan's split zoom is never deeper.
    let countingZoom: Int
    /// Points per tile at `countingZoom`, by Hilbert position.
    private var countsPerTile: [UInt64: Int] = [:]
    /// Positions surveyed so far.
    public private(set) var pointCount = 0
    /// Routes surveyed so far.
    public private(set) var routeCount = 0
    /// Layer names in the order a route set built from the same routes numbers them (nil first).
    public private(set) var layers: [String?] = [nil]
    private var metadataSurvey: TilesetMetadata.Survey

    /// Tiles deeper than this are not counted: 4^12 positions bound the table, and a split this fine balances any
    /// input worth sharding.
    public static let deepestCountingZoom = 12

    /// An empty survey for a build with `options`.
    public init(options: TilingOptions) {
        self.options = options
        countingZoom = min(options.maxZoom, Self.deepestCountingZoom)
        metadataSurvey = TilesetMetadata.Survey(options: options)
    }

    /// Adds a route drawn as `lines` (see `ProjectedRouteSet.drawnLines`).
    public mutating func add(_ route: Route, lines: [[Coordinate]]) {
        guard !lines.isEmpty else { return }
        routeCount += 1
        if let name = route.layer, !layers.contains(name) { layers.append(name) }
        // The metadata survey projects each position once and hands it over for counting. The table is moved out
        // of `self` while it counts (the survey is part of `self`), so that it changes in place, not as a copy.
        let zoom = countingZoom
        var last: TileID?, lastPosition: UInt64 = 0
        var counts = countsPerTile
        countsPerTile = [:]
        metadataSurvey.add(route, lines: lines) { point in
            let tile = WebMercator.tile(containing: point, zoom: zoom)
            if tile != last {
                last = tile
                lastPosition = tile.hilbertIndex
            }
            counts[lastPosition, default: 0] += 1
        }
        countsPerTile = counts
        pointCount += lines.reduce(0) { $0 + $1.count }
    }

    /// The metadata of the whole tileset, the same as a single build of the routes surveyed writes.
    public func metadata(name: String) -> TilesetMetadata { metadataSurvey.metadata(name: name) }

    /// The estimated work above the split zoom, against the work of cutting a point at every zoom below it: per
    /// zoom above, and for holding every route in memory rather than a shard's part of them. Measured on 10M
    /// generated points at z0–14 split at zoom 10 in 4 shards (release build): a shard writing the zooms above
    /// and holding every route took about 0.46 of the whole's work below the split longer than the others.
    static let costOfAZoomAbove = 0.027
    static let costOfHoldingEveryRoute = 0.25

    /// A plan for `count` shards: the shallowest split zoom at which no tile holds more than an eighth of a shard's
    /// share of the points (or the counting zoom), then runs along the Hilbert curve of equal estimated work. A
    /// tile's work is its points (each is cut at every zoom from the split down, and the deepest zooms, where most
    /// tiles are, dominate); shard 0's also holds the work above the split zoom and of holding every route.
    public func plan(shards count: Int) throws -> ShardPlan {
        guard count > 1, countingZoom > 0, pointCount > 0 else {
            return try ShardPlan(count: max(count, 1), splitZoom: 0, starts: Array(repeating: 1, count: max(count - 1, 0)))
        }
        let counted = countsPerTile.sorted { $0.key < $1.key }.map { (position: $0.key, points: $0.value) }
        var splitZoom = countingZoom
        var tiles = counted
        for z in 1...countingZoom {
            let merged = Self.merge(counted, shift: 2 * (countingZoom - z))
            if merged.map(\.points).max() ?? 0 <= pointCount / (8 * count) || z == countingZoom {
                splitZoom = z
                tiles = merged
                break
            }
        }
        let zoomsAbove = max(0, splitZoom - options.minZoom)
        let top = zoomsAbove == 0 ? 0 : Double(pointCount)
            * (Self.costOfAZoomAbove * Double(zoomsAbove) + Self.costOfHoldingEveryRoute * Double(count - 1) / Double(count))
        let work = tiles.map { Double($0.points) }
        // Shard 0 takes the work above the split and, if that is less than a share, the first tiles up to a share;
        // the other shards split the rest evenly.
        let total = work.reduce(0, +)
        let firstDeep = max(0, (top + total) / Double(count) - top)
        let share = max((total - firstDeep) / Double(count - 1), .leastNonzeroMagnitude)
        var starts = Array(repeating: UInt64(1) << (2 * UInt64(splitZoom)), count: count - 1)
        var before = 0.0
        var next = 1
        for (tile, cost) in zip(tiles, work) {
            // The shard whose part holds the middle of this tile's work; it only grows along the curve.
            let middle = before + cost / 2
            let owner = middle < firstDeep ? 0 : min(count - 1, 1 + Int((middle - firstDeep) / share))
            while next <= owner {
                starts[next - 1] = tile.position
                next += 1
            }
            before += cost
        }
        return try ShardPlan(count: count, splitZoom: splitZoom, starts: starts)
    }

    /// Counts by position merged into their ancestors `shift / 2` zooms up (a Hilbert position's ancestor is the
    /// position shifted right by two bits a zoom), in order.
    static func merge(_ counted: [(position: UInt64, points: Int)], shift: Int) -> [(position: UInt64, points: Int)] {
        var out: [(position: UInt64, points: Int)] = []
        for (position, points) in counted {
            let parent = position >> UInt64(shift)
            if let last = out.last, last.position == parent {
                out[out.count - 1].points += points
            } else {
                out.append((parent, points))
            }
        }
        return out
    }
}

import RouteTilesGeo
import RouteTilesModel
import RouteTilesTiling

/// The second pass of a sharded build: every route of the input, in the same order as the survey saw them, is
/// offered; the shard keeps those its tiles need, numbered (feature ids, layers) as in the whole input, so that its
/// tiles are byte for byte those of a single build.
public struct ShardRoutes: Sendable {
    /// The shard whose routes are kept.
    public let shard: PyramidShard
    /// The tiling options of the survey, which the whole build shares.
    public let options: TilingOptions
    /// The routes kept, projected.
    public private(set) var projected: ProjectedRouteSet
    /// How many routes were offered: the next route's index in the whole input.
    public private(set) var offered = 0

    /// An empty set of routes for `shard`, with its layers numbered as `survey` found them in the whole input.
    public init(shard: PyramidShard, survey: ShardSurvey) {
        self.shard = shard
        options = survey.options
        projected = ProjectedRouteSet(layers: survey.layers)
    }

    /// Offers the next route of the input; true when the shard keeps it.
    @discardableResult
    public mutating func offer(_ route: Route) -> Bool {
        defer { offered += 1 }
        let drawn = DrawnRoute(route, geodesicTolerance: options.geodesicTolerance)
        guard shard.needs(drawn.lines, options: options) else { return false }
        projected.add(route, index: offered, drawn: drawn)
        return true
    }
}

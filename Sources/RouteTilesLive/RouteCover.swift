import RouteTilesModel
import RouteTilesTiling

/// The tiles a route is drawn in: every tile, at every zoom of the options, in which the route has a feature
/// (with the buffer). These are the tiles whose bytes change when the route changes.
enum RouteCover {
    /// The cover of `route` alone, exactly the tiles a build of it would write.
    static func tiles(of route: Route, options: TilingOptions) -> Set<TileID> {
        tiles(of: RouteTiler(routes: [route], options: options))
    }

    /// The cover of the routes of `tiler`: every tile a build of them would write.
    static func tiles(of tiler: RouteTiler) -> Set<TileID> {
        tiler.cover()
    }
}

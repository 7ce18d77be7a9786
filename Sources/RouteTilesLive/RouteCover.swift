import RouteTilesModel
import RouteTilesTiling

/// The tiles a route is drawn in: every tile, at every zoom of the options, in which the route has a feature
/// (with the buffer). These are the tiles whose bytes change when the route changes.
///
/// Exact when found from the route's tiler (`init(of:)`); an append whose new segments would be drawn in more
/// tiles than `TilingOptions.appendTileLimit` adds subtrees instead of listing the deepest zooms, and then the cover
/// is a superset: every tile under a subtree counts as covered.
package struct RouteCover: Sendable {
    /// The tiles listed.
    var tiles: Set<TileID>
    /// Tiles under which every tile, down to the greatest zoom, counts as covered; usually none.
    var subtrees: Set<TileID> = []

    /// The cover of the routes of `tiler`: every tile a build of them would write.
    init(of tiler: RouteTiler) {
        tiles = tiler.cover()
    }

    /// The exact cover of `route` alone: the tiles a build of it would write.
    package static func tiles(of route: Route, options: TilingOptions) -> Set<TileID> {
        RouteTiler(routes: [route], options: options).cover()
    }

    /// Adds the tiles an append drew in.
    mutating func grow(by drawn: AppendedTiles) {
        tiles.formUnion(drawn.drawn)
        subtrees.formUnion(drawn.subtrees)
    }
}

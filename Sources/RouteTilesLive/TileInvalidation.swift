import RouteTilesModel
import RouteTilesTiling

/// Tiles whose bytes a change made different: listed tiles, and subtrees under which every tile counts as changed
/// (see `RouteCover.subtrees`).
struct TileInvalidation {
    var tiles = Set<TileID>()
    var subtrees = Set<TileID>()

    mutating func formUnion(_ cover: RouteCover) {
        tiles.formUnion(cover.tiles)
        subtrees.formUnion(cover.subtrees)
    }

    mutating func formUnion(_ other: TileInvalidation) {
        tiles.formUnion(other.tiles)
        subtrees.formUnion(other.subtrees)
    }

    mutating func formUnion(_ appended: AppendedTiles) {
        tiles.formUnion(appended.changed)
        subtrees.formUnion(appended.subtrees)
    }
}

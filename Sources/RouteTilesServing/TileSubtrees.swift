import RouteTilesModel

/// Tiles taken as the roots of subtrees (a change's `subtrees`): whether a tile lies under one, itself or deeper,
/// in a look-up per zoom of the roots.
struct TileSubtrees {
    private let roots: Set<TileID>
    private let zooms: [Int]

    init(_ subtrees: [TileID]) {
        roots = Set(subtrees)
        zooms = Set(subtrees.map(\.z)).sorted()
    }

    func contain(_ tile: TileID) -> Bool {
        for z in zooms {
            guard z <= tile.z else { return false }
            let shift = tile.z - z
            if roots.contains(TileID(z: z, x: tile.x >> shift, y: tile.y >> shift)) { return true }
        }
        return false
    }
}

import RouteTilesModel

/// Widens a set of tiles across zooms: each tile adds its parents and its children at every zoom of `zooms`
/// (what a change to a tile's area invalidates at other zooms).
package enum ZoomExpansion {
    package static func expand(_ tiles: some Sequence<TileID>, to zooms: ClosedRange<Int>) -> Set<TileID> {
        var out = Set<TileID>()
        for tile in tiles {
            for z in zooms {
                if z <= tile.z {
                    let shift = tile.z - z
                    out.insert(TileID(z: z, x: tile.x >> shift, y: tile.y >> shift))
                } else {
                    let shift = z - tile.z
                    for x in (tile.x << shift)..<((tile.x + 1) << shift) {
                        for y in (tile.y << shift)..<((tile.y + 1) << shift) { out.insert(TileID(z: z, x: x, y: y)) }
                    }
                }
            }
        }
        return out
    }

    /// Parses "a-b" (or one zoom "a"); the error names the text.
    package static func parse(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(parts.count), let a = parts.first ?? nil, let b = parts.last ?? nil,
              0 <= a, a <= b, b <= TileID.maxZoom else {
            throw ValueError("'\(text)' is not a zoom range a-b with 0 ≤ a ≤ b ≤ \(TileID.maxZoom)")
        }
        return a...b
    }
}

import RouteTilesModel

/// PMTiles tile ids: tiles numbered zoom by zoom (all of z0, then all of z1, …), along the Hilbert curve within
/// each zoom (`TileID.hilbertIndex`).
extension TileID {
    /// The number of tiles at zooms below `z`: (4^z − 1) / 3.
    static func tilesBelow(zoom z: Int) -> UInt64 { ((UInt64(1) << (2 * UInt64(z))) - 1) / 3 }

    /// The PMTiles tile id. The tile must be valid.
    package var pmtilesID: UInt64 { Self.tilesBelow(zoom: z) + hilbertIndex }

    /// The tile of a PMTiles tile id, or nil beyond zoom `maxZoom`.
    package init?(pmtilesID id: UInt64) {
        var z = 0
        while z <= TileID.maxZoom && Self.tilesBelow(zoom: z + 1) <= id { z += 1 }
        guard z <= TileID.maxZoom else { return nil }
        self.init(z: z, hilbertIndex: id - Self.tilesBelow(zoom: z))
    }
}

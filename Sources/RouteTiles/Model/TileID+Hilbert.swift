/// PMTiles tile ids: tiles numbered zoom by zoom (all of z0, then all of z1, …), along a Hilbert curve within each
/// zoom, so that tiles near each other on the map are near each other in the archive.
extension TileID {
    /// The number of tiles at zooms below `z`: (4^z − 1) / 3.
    static func tilesBelow(zoom z: Int) -> UInt64 { ((UInt64(1) << (2 * UInt64(z))) - 1) / 3 }

    /// The position of this tile along the Hilbert curve of its zoom.
    public var hilbertIndex: UInt64 {
        let n = 1 << z
        var x = self.x, y = self.y
        var d: UInt64 = 0
        var s = n / 2
        while s > 0 {
            let rx = (x & s) > 0 ? 1 : 0
            let ry = (y & s) > 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            Self.rotate(n, &x, &y, rx, ry)
            s /= 2
        }
        return d
    }

    /// The PMTiles tile id. The tile must be valid.
    public var pmtilesID: UInt64 { Self.tilesBelow(zoom: z) + hilbertIndex }

    /// The tile of a PMTiles tile id, or nil beyond zoom `maxZoom`.
    public init?(pmtilesID id: UInt64) {
        var z = 0
        while z <= TileID.maxZoom && Self.tilesBelow(zoom: z + 1) <= id { z += 1 }
        guard z <= TileID.maxZoom else { return nil }
        var t = id - Self.tilesBelow(zoom: z)
        var x = 0, y = 0
        var s = 1
        while s < (1 << z) {
            let rx = Int(1 & (t / 2))
            let ry = Int(1 & (t ^ UInt64(rx)))
            Self.rotate(s, &x, &y, rx, ry)
            x += s * rx
            y += s * ry
            t /= 4
            s *= 2
        }
        self.init(z: z, x: x, y: y)
    }

    private static func rotate(_ n: Int, _ x: inout Int, _ y: inout Int, _ rx: Int, _ ry: Int) {
        guard ry == 0 else { return }
        if rx == 1 {
            x = n - 1 - x
            y = n - 1 - y
        }
        swap(&x, &y)
    }
}

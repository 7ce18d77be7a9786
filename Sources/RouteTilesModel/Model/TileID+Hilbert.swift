/// Tiles along a Hilbert curve within their zoom, so that tiles near each other on the map are near each other in
/// the order (PMTiles numbers tiles this way, see `TileID.pmtilesID`; sharded builds split runs of it).
extension TileID {
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

    /// The tile at position `hilbertIndex` (below 4^z) along the Hilbert curve of zoom `z`.
    public init(z: Int, hilbertIndex: UInt64) {
        var t = hilbertIndex
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

/// A tile of OGC's WorldCRS84Quad tile matrix set (EPSG:4326 in longitude, latitude order): at zoom z the world is
/// 2^(z+1) columns by 2^z rows of tiles of 180 / 2^z degrees square, counted from the north-west corner (−180°, 90°).
/// Zoom 0 is two tiles, the western and the eastern hemisphere.
public struct CRS84TileID: Hashable, Sendable, CustomStringConvertible {
    /// The tile matrix: the zoom.
    public var z: Int
    /// The column, from 0 at −180° eastward, below 2^(z+1).
    public var column: Int
    /// The row, from 0 at 90° southward, below 2^z.
    public var row: Int

    /// The tile at `z`, `row`, `column`; check ``isValid`` for input from outside.
    public init(z: Int, row: Int, column: Int) {
        self.z = z
        self.row = row
        self.column = column
    }

    /// The deepest zoom RouteTiles cuts in WorldCRS84Quad: its tiles are as wide as Web Mercator's one zoom deeper.
    public static let maxZoom = TileID.maxZoom - 1

    /// Whether z is in `0...maxZoom`, the column in `0..<2^(z+1)` and the row in `0..<2^z`.
    public var isValid: Bool {
        guard z >= 0, z <= Self.maxZoom else { return false }
        return column >= 0 && column < 2 << z && row >= 0 && row < 1 << z
    }

    /// The side of a tile at this zoom, in degrees.
    public var side: Double { 180 / Double(1 << z) }

    /// The tile's western edge, in degrees.
    public var west: Double { -180 + Double(column) * side }

    /// The tile's northern edge, in degrees.
    public var north: Double { 90 - Double(row) * side }

    /// The tile as `z/row/column`, the order of OGC API – Tiles' `{tileMatrix}/{tileRow}/{tileCol}`.
    public var description: String { "\(z)/\(row)/\(column) (WorldCRS84Quad)" }
}

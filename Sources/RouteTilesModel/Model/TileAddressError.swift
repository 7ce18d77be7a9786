/// A z/x/y that names no tile: z outside `0...TileID.maxZoom`, or x or y outside `0..<2^z`. An empty tile is not an
/// error (the tilers answer nil); this is.
public struct TileAddressError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The address that names no tile.
    public var tile: TileID

    /// An error for `tile`.
    public init(tile: TileID) {
        self.tile = tile
    }

    /// Which part of the address is out of range, and the range.
    public var description: String {
        guard (0...TileID.maxZoom).contains(tile.z) else {
            return "tile \(tile) does not exist: zoom \(tile.z) is outside 0…\(TileID.maxZoom)"
        }
        let last = (1 << tile.z) - 1
        return "tile \(tile) does not exist: x and y lie in 0…\(last) at zoom \(tile.z)"
    }
}

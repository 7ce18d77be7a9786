/// A tile of the z/x/y pyramid: x grows eastward from −180°, y southward from +85.05°.
public struct TileID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The zoom: the world is 2^z tiles wide and high.
    public var z: Int
    /// The column, from 0 at −180° eastward.
    public var x: Int
    /// The row, from 0 at the top (85.05°N) southward.
    public var y: Int

    /// Hashes the three numbers as one word (z below 64, x and y below 2^29 in a valid tile; others still hash,
    /// only less evenly): sets of tiles are hashed on every write and every cache look-up, and one word hashes at a
    /// third of the cost of three.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(truncatingIfNeeded: z) << 58 ^ UInt64(truncatingIfNeeded: x) << 29 ^ UInt64(truncatingIfNeeded: y))
    }

    /// The tile at `z`/`x`/`y`; check ``isValid`` for input from outside.
    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// The greatest zoom RouteTiles handles: tiles of 2^28 / 2^30 map points would be smaller than one point.
    public static let maxZoom = 28

    /// Whether z is in `0...maxZoom` and x, y in `0..<2^z`.
    public var isValid: Bool {
        guard z >= 0, z <= TileID.maxZoom else { return false }
        let n = 1 << z
        return x >= 0 && x < n && y >= 0 && y < n
    }

    /// The tile as `z/x/y`.
    public var description: String { "\(z)/\(x)/\(y)" }

    /// Parses "z/x/y"; returns nil when it is not three integers or names no tile.
    public init?(_ text: String) {
        let fields = text.split(separator: "/", omittingEmptySubsequences: false)
        guard fields.count == 3, let z = Int(fields[0]), let x = Int(fields[1]), let y = Int(fields[2]) else {
            return nil
        }
        self.init(z: z, x: x, y: y)
        guard isValid else { return nil }
    }

    /// The four tiles one zoom deeper that cover this one: north-west, north-east, south-west, south-east.
    public var children: [TileID] {
        [TileID(z: z + 1, x: 2 * x, y: 2 * y), TileID(z: z + 1, x: 2 * x + 1, y: 2 * y),
         TileID(z: z + 1, x: 2 * x, y: 2 * y + 1), TileID(z: z + 1, x: 2 * x + 1, y: 2 * y + 1)]
    }

    /// Orders tiles by zoom, then column, then row.
    /// By zoom, then column, then row. Written out rather than as a comparison of tuples, which a debug build
    /// runs through generic code (a far fix's change sorts tens of thousands of tiles).
    public static func < (a: TileID, b: TileID) -> Bool {
        if a.z != b.z { return a.z < b.z }
        if a.x != b.x { return a.x < b.x }
        return a.y < b.y
    }
}

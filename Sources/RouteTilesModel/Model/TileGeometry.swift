/// A point in integer tile coordinates: `0..<extent` inside the tile, negative or beyond `extent` in the buffer.
public struct TilePoint: Hashable, Sendable {
    /// Tile units from the tile's western edge.
    public var x: Int32
    /// Tile units from the tile's northern edge, growing southward.
    public var y: Int32

    /// A point at `x`, `y` in tile coordinates.
    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }
}

/// The geometry kinds RouteTiles writes, numbered as in the MVT 2.1 `GeomType` enum.
public enum GeometryKind: UInt8, Sendable {
    /// Points: each part is one point.
    case point = 1
    /// Lines: each part is a polyline.
    case lineString = 2
}

/// The geometry of one feature in tile coordinates: several parts packed in one array.
///
/// For a line, each part is one polyline; for points, each part is one point. `partEnds[i]` is the index one past the
/// last point of part `i`, so a buffer can be cleared and refilled per feature without allocating.
public struct TileGeometry: Sendable {
    /// Whether the parts are points or lines.
    public var kind: GeometryKind
    /// The points of every part, one part after the other.
    public var points: [TilePoint]
    /// For each part, the index in `points` one past its last point.
    public var partEnds: [Int]

    /// A geometry of `kind` with the given points and part ends (empty by default).
    public init(kind: GeometryKind = .lineString, points: [TilePoint] = [], partEnds: [Int] = []) {
        self.kind = kind
        self.points = points
        self.partEnds = partEnds
    }

    /// Whether the geometry has no part.
    public var isEmpty: Bool { partEnds.isEmpty }

    /// Empties the geometry, keeping its storage for the next feature.
    public mutating func removeAll() {
        points.removeAll(keepingCapacity: true)
        partEnds.removeAll(keepingCapacity: true)
    }

    /// Appends one part; an empty part is ignored.
    public mutating func appendPart<S: Sequence>(_ part: S) where S.Element == TilePoint {
        let before = points.count
        points.append(contentsOf: part)
        if points.count > before { partEnds.append(points.count) }
    }

    /// The parts as separate arrays (for tests and decoding; not for hot paths).
    public var parts: [[TilePoint]] {
        var result: [[TilePoint]] = []
        var start = 0
        for end in partEnds {
            result.append(Array(points[start..<end]))
            start = end
        }
        return result
    }
}

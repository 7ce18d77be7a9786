/// A point in integer tile coordinates: `0..<extent` inside the tile, negative or beyond `extent` in the buffer.
public struct TilePoint: Hashable, Sendable {
    public var x: Int32
    public var y: Int32

    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }
}

/// The geometry kinds RouteTiles writes, numbered as in the MVT 2.1 `GeomType` enum.
public enum GeometryKind: UInt8, Sendable {
    case point = 1
    case lineString = 2
}

/// The geometry of one feature in tile coordinates: several parts packed in one array.
///
/// For a line, each part is one polyline; for points, each part is one point. `partEnds[i]` is the index one past the
/// last point of part `i`, so a buffer can be cleared and refilled per feature without allocating.
public struct TileGeometry: Sendable {
    public var kind: GeometryKind
    public var points: [TilePoint]
    public var partEnds: [Int]

    public init(kind: GeometryKind = .lineString, points: [TilePoint] = [], partEnds: [Int] = []) {
        self.kind = kind
        self.points = points
        self.partEnds = partEnds
    }

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

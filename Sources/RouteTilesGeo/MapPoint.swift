/// A point in map-point space: Web Mercator scaled so that the world is `WebMercator.worldSize` points square,
/// origin at the top-left corner (−180°, +85.0511°), y growing southward (MapKit's `MKMapPoint` convention).
///
/// x may lie outside `0..<worldSize` for routes that cross the antimeridian: such a line is kept continuous and
/// drawn on both sides of the world by the tiler.
public struct MapPoint: Hashable, Sendable {
    /// Distance from the world's western edge (−180°), in map points.
    public var x: Double
    /// Distance from the world's northern edge (85.0511°N), in map points, growing southward.
    public var y: Double

    /// A map point at `x`, `y`.
    @inlinable public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle in map-point space, edges included.
public struct MapRect: Hashable, Sendable {
    /// The western edge.
    public var minX: Double
    /// The northern edge (y grows southward).
    public var minY: Double
    /// The eastern edge.
    public var maxX: Double
    /// The southern edge.
    public var maxY: Double

    /// A rectangle with the given edges.
    @inlinable public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The empty rectangle, ready to grow with `formUnion`.
    public static let empty = MapRect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    /// Whether the rectangle holds no point, as ``empty`` does.
    public var isEmpty: Bool { minX > maxX || minY > maxY }

    /// Grows the rectangle to include `p`.
    @inlinable public mutating func formUnion(_ p: MapPoint) {
        if p.x < minX { minX = p.x }
        if p.x > maxX { maxX = p.x }
        if p.y < minY { minY = p.y }
        if p.y > maxY { maxY = p.y }
    }

    /// Grows the rectangle to include `r`.
    @inlinable public mutating func formUnion(_ r: MapRect) {
        if r.minX < minX { minX = r.minX }
        if r.maxX > maxX { maxX = r.maxX }
        if r.minY < minY { minY = r.minY }
        if r.maxY > maxY { maxY = r.maxY }
    }

    /// Whether the two rectangles share at least one point (touching edges count).
    @inlinable public func intersects(_ r: MapRect) -> Bool {
        minX <= r.maxX && r.minX <= maxX && minY <= r.maxY && r.minY <= maxY
    }

    /// Whether `r` lies wholly inside this rectangle.
    @inlinable public func contains(_ r: MapRect) -> Bool {
        minX <= r.minX && r.maxX <= maxX && minY <= r.minY && r.maxY <= maxY
    }

    /// The rectangle moved `dx` map points eastward (a whole world's width to reach a copy across the antimeridian).
    @inlinable public func offsetBy(dx: Double) -> MapRect {
        MapRect(minX: minX + dx, minY: minY, maxX: maxX + dx, maxY: maxY)
    }
}

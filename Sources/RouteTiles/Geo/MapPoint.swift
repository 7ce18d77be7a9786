/// A point in map-point space: Web Mercator scaled so that the world is `WebMercator.worldSize` points square,
/// origin at the top-left corner (−180°, +85.0511°), y growing southward (MapKit's `MKMapPoint` convention).
///
/// x may lie outside `0..<worldSize` for routes that cross the antimeridian: such a line is kept continuous and
/// drawn on both sides of the world by the tiler.
public struct MapPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double

    @inlinable public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle in map-point space, edges included.
public struct MapRect: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    @inlinable public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The empty rectangle, ready to grow with `formUnion`.
    public static let empty = MapRect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    public var isEmpty: Bool { minX > maxX || minY > maxY }

    @inlinable public mutating func formUnion(_ p: MapPoint) {
        if p.x < minX { minX = p.x }
        if p.x > maxX { maxX = p.x }
        if p.y < minY { minY = p.y }
        if p.y > maxY { maxY = p.y }
    }

    @inlinable public mutating func formUnion(_ r: MapRect) {
        if r.minX < minX { minX = r.minX }
        if r.maxX > maxX { maxX = r.maxX }
        if r.minY < minY { minY = r.minY }
        if r.maxY > maxY { maxY = r.maxY }
    }

    @inlinable public func intersects(_ r: MapRect) -> Bool {
        minX <= r.maxX && r.minX <= maxX && minY <= r.maxY && r.minY <= maxY
    }

    @inlinable public func contains(_ r: MapRect) -> Bool {
        minX <= r.minX && r.maxX <= maxX && minY <= r.minY && r.maxY <= maxY
    }

    @inlinable public func offsetBy(dx: Double) -> MapRect {
        MapRect(minX: minX + dx, minY: minY, maxX: maxX + dx, maxY: maxY)
    }
}

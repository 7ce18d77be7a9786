@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// The `density` layer of one tile: the tile cut into `side` × `side` cells (64: eight pixels of a 512-pixel tile),
/// and per cell the number of route positions in it, written as one point feature at the cell's centre with `count`.
///
/// A position counts in the one tile of each zoom that holds it (the tile proper, not its buffer), so the counts of
/// a zoom's tiles sum to the positions: a client draws millions of them as a heatmap from a few thousand points a
/// tile. A position is a vertex of a route as drawn: the positions read, and for a geodesic route the vertices added
/// along its great circle. The counts come from the tile's spans, the same the cutter reads, so a tile costs what
/// lies in it and a live tile's density is as current as its lines.
package struct DensityGrid {
    /// Cells along each side of a tile.
    package static let side = 64
    /// The layer's name.
    package static let layerName = "density"

    private var counts: [UInt32]
    private var touched: [Int] = []
    private let extent: Int32

    package init(extent: Int) {
        self.extent = Int32(extent)
        counts = Array(repeating: 0, count: Self.side * Self.side)
    }

    /// Counts the positions of `set` that `spans` (a tile's, from its index) hold inside the tile `frame` frames:
    /// the first vertex of every segment, the last vertex of a line, and for a route of points each point.
    package mutating func add(_ spans: [SegmentSpan], of set: ProjectedRouteSet, frame: TileFrame) {
        for span in spans {
            let line = Int(span.line)
            let isPoint = set.routeInfos[Int(set.lineRoute[line])].isPoint
            let dx = Double(span.shift) * WebMercator.worldSize
            let lastVertex = set.lineStarts[line + 1] - 1
            let end = Int(span.end)
            for i in Int(span.first)...end {
                if isPoint {
                    guard i < end, set.xs[i] == set.xs[i + 1], set.ys[i] == set.ys[i + 1] else { continue }
                } else if i == end, end != lastVertex {
                    continue
                }
                count(frame.units(set.xs[i] + dx, set.ys[i]))
            }
        }
    }

    /// Counts a position at tile units (x, y) when it lies in the tile proper: each position in one tile of a zoom.
    @inline(__always)
    private mutating func count(_ units: (Double, Double)) {
        let size = Double(extent)
        guard units.0 >= 0, units.0 < size, units.1 >= 0, units.1 < size else { return }
        let cell = Int(units.1 / size * Double(Self.side)) * Self.side + Int(units.0 / size * Double(Self.side))
        if counts[cell] == 0 { touched.append(cell) }
        counts[cell] &+= 1
    }

    /// Whether no position was counted.
    package var isEmpty: Bool { touched.isEmpty }

    /// The total of the counts.
    package var total: Int { touched.reduce(0) { $0 + Int(counts[$1]) } }

    /// The layer: one point per non-empty cell, in row-major order, with `count`.
    package func layer() -> VectorLayerBuilder {
        var layer = VectorLayerBuilder(name: Self.layerName, extent: UInt32(extent))
        var geometry = TileGeometry(kind: .point)
        let cellUnits = Int(extent) / Self.side
        for cell in touched.sorted() {
            geometry.removeAll()
            geometry.appendPart(CollectionOfOne(TilePoint(x: Int32((cell % Self.side) * cellUnits + cellUnits / 2),
                                                          y: Int32((cell / Self.side) * cellUnits + cellUnits / 2))))
            layer.appendFeature(id: nil, geometry: geometry, properties: [Property("count", .int(Int64(counts[cell])))])
        }
        return layer
    }
}

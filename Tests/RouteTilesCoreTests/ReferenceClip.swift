import Foundation
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo

/// An independent clip of routes to buffered tiles, to check what `TileCutter` writes against.
///
/// Written apart from the cutter and as plainly as possible: each segment is clipped by Cohen–Sutherland in tile
/// units (the cutter uses Liang–Barsky in map points), parts are chained by walking each line segment by segment,
/// and points are rounded to tile units with nothing clamped, so a point the cutter failed to clip shows up.
/// Its input is the projected route set the tiler cuts (`RouteTiler.routes`), so that only the cut is compared.
///
/// Besides the clip it models what the cutter promises about a part: consecutive equal points are written once,
/// a part of fewer than two distinct points is dropped, and a route whose every part in a tile collapsed so is
/// kept as a two-point stub where the first of them started. It does not simplify: compare it with tiles cut with
/// `simplification = 0`, or at the maximum zoom.
package struct ReferenceClip {
    /// What one route should look like in one tile.
    package struct Feature {
        package var parts: [[TilePoint]] = []
        /// When every part of the route collapsed to one tile unit: where the first of them (in line, world copy
        /// and segment order) started.
        package var stub: TilePoint?
        fileprivate var stubOrder: [Int]?
    }

    /// A part being walked in one tile, for one line in one world copy, in tile units.
    private struct OpenPart {
        package var points: [(Double, Double)]
        package var lastSegment: Int
        package var endsInside: Bool
        package var firstSegment: Int
    }

    package let extent: Int
    package let buffer: Int

    package init(extent: Int = 4096, buffer: Int = 64) {
        self.extent = extent
        self.buffer = buffer
    }

    /// The features of every tile of zoom `zoom` that any route of `set` reaches: tile → route index → feature.
    package func cut(_ set: ProjectedRouteSet, zoom: Int) -> [TileID: [Int: Feature]] {
        var result: [TileID: [Int: Feature]] = [:]
        for (route, info) in set.routeInfos.enumerated() where !info.isPoint {
            for line in info.firstLine..<(info.firstLine + info.lineCount) {
                let first = set.lineStarts[line], last = set.lineStarts[line + 1] - 1
                for shift in -1...1 {
                    cutLine(set, first: first, last: last, line: line, shift: shift, zoom: zoom) { tile, part, order in
                        var feature = result[tile, default: [:]][route, default: Feature()]
                        if part.count >= 2 {
                            feature.parts.append(part)
                        } else if feature.stubOrder.map({ order.lexicographicallyPrecedes($0) }) ?? true {
                            feature.stub = part[0]
                            feature.stubOrder = order
                        }
                        result[tile, default: [:]][route] = feature
                    }
                }
            }
        }
        for (tile, features) in result {
            for (route, var feature) in features where !feature.parts.isEmpty && feature.stub != nil {
                feature.stub = nil
                result[tile]?[route] = feature
            }
        }
        return result
    }

    /// Walks one line, drawn `shift` worlds to the east, through every tile of `zoom` near each segment; hands
    /// over each finished part, rounded and without repeated points, with its tile and its (line, shift, first
    /// segment) order.
    private func cutLine(_ set: ProjectedRouteSet, first: Int, last: Int, line: Int, shift: Int, zoom: Int,
                         emit: (TileID, [TilePoint], [Int]) -> Void) {
        let n = 1 << zoom
        let size = WebMercator.worldSize / Double(n)
        let pad = size * Double(buffer) / Double(extent)
        let scale = Double(extent) / size
        let low = Double(-buffer), high = Double(extent + buffer)
        let dx = Double(shift) * WebMercator.worldSize
        var open: [TileID: OpenPart] = [:]

        func close(_ tile: TileID) {
            guard let part = open.removeValue(forKey: tile) else { return }
            var rounded: [TilePoint] = []
            for (u, v) in part.points {
                let p = TilePoint(x: Int32(u.rounded()), y: Int32(v.rounded()))
                if rounded.last != p { rounded.append(p) }
            }
            emit(tile, rounded, [line, shift, part.firstSegment])
        }

        guard last > first else { return }
        for i in first..<last {
            let ax = set.xs[i] + dx, ay = set.ys[i], bx = set.xs[i + 1] + dx, by = set.ys[i + 1]
            let x0 = max(0, Int(((min(ax, bx) - pad) / size).rounded(.down)))
            let x1 = min(n - 1, Int(((max(ax, bx) + pad) / size).rounded(.down)))
            let y0 = max(0, Int(((min(ay, by) - pad) / size).rounded(.down)))
            let y1 = min(n - 1, Int(((max(ay, by) + pad) / size).rounded(.down)))
            guard x0 <= x1, y0 <= y1 else { continue }
            for tx in x0...x1 {
                for ty in y0...y1 {
                    let tile = TileID(z: zoom, x: tx, y: ty)
                    let originX = Double(tx) * size, originY = Double(ty) * size
                    let a = ((ax - originX) * scale, (ay - originY) * scale)
                    let b = ((bx - originX) * scale, (by - originY) * scale)
                    guard let (p, q) = Self.cohenSutherland(a, b, low: low, high: high) else {
                        close(tile)
                        continue
                    }
                    let aInside = Self.outcode(a, low: low, high: high) == 0
                    let bInside = Self.outcode(b, low: low, high: high) == 0
                    if let part = open[tile], part.lastSegment == i - 1, part.endsInside, aInside {
                        open[tile]?.points.append(q)
                    } else {
                        close(tile)
                        open[tile] = OpenPart(points: [p, q], lastSegment: i, endsInside: bInside, firstSegment: i)
                    }
                    open[tile]?.lastSegment = i
                    open[tile]?.endsInside = bInside
                    if !bInside { close(tile) }
                }
            }
        }
        for tile in Array(open.keys) { close(tile) }
    }

    /// Where a point lies around the square `low...high`: 0 inside (edges included), else bits for left, right,
    /// above and below.
    package static func outcode(_ p: (Double, Double), low: Double, high: Double) -> Int {
        var code = 0
        if p.0 < low { code |= 1 } else if p.0 > high { code |= 2 }
        if p.1 < low { code |= 4 } else if p.1 > high { code |= 8 }
        return code
    }

    /// Cohen–Sutherland: the part of segment a→b inside the square `low...high` (edges included), or nil.
    package static func cohenSutherland(_ a: (Double, Double), _ b: (Double, Double), low: Double,
                                high: Double) -> ((Double, Double), (Double, Double))? {
        var p = a, q = b
        var cp = outcode(p, low: low, high: high), cq = outcode(q, low: low, high: high)
        while true {
            if cp | cq == 0 { return (p, q) }
            if cp & cq != 0 { return nil }
            let out = cp != 0 ? cp : cq
            let from = out == cp ? p : q, to = out == cp ? q : p
            var moved: (Double, Double)
            if out & 8 != 0 {
                moved = (from.0 + (to.0 - from.0) * (high - from.1) / (to.1 - from.1), high)
            } else if out & 4 != 0 {
                moved = (from.0 + (to.0 - from.0) * (low - from.1) / (to.1 - from.1), low)
            } else if out & 2 != 0 {
                moved = (high, from.1 + (to.1 - from.1) * (high - from.0) / (to.0 - from.0))
            } else {
                moved = (low, from.1 + (to.1 - from.1) * (low - from.0) / (to.0 - from.0))
            }
            if out == cp {
                p = moved
                cp = outcode(p, low: low, high: high)
            } else {
                q = moved
                cq = outcode(q, low: low, high: high)
            }
        }
    }

    /// What differs between the features of `layer` (a decoded tile, nil for no tile) and the reference's for that
    /// tile: missing or extra features and parts, points more than one unit apart. Empty when they agree.
    /// `featureIDs` gives each route's feature id.
    package static func differences(in tile: TileID, layer: DecodedLayer?, expected: [Int: Feature],
                            featureIDs: [UInt64]) -> [String] {
        var problems: [String] = []
        var actual: [UInt64: DecodedFeature] = [:]
        for feature in layer?.features ?? [] {
            guard let id = feature.id else {
                problems.append("\(tile): a feature without id")
                continue
            }
            if actual.updateValue(feature, forKey: id) != nil { problems.append("\(tile): feature \(id) twice") }
        }
        let expectedIDs = Set(expected.keys.map { featureIDs[$0] })
        for id in actual.keys where !expectedIDs.contains(id) {
            problems.append("\(tile): feature \(id) that the reference clip does not reach this tile")
        }
        for (route, want) in expected.sorted(by: { $0.key < $1.key }) {
            let id = featureIDs[route]
            guard let got = actual[id] else {
                problems.append("\(tile): route \(route) is missing (reference parts: \(want.parts), stub: \(String(describing: want.stub)))")
                continue
            }
            var parts = got.geometry.parts
            if let stub = want.stub {
                let ok = parts.count == 1 && parts[0].count == 2 && near(parts[0][0], stub)
                    && max(abs(parts[0][1].x - parts[0][0].x), abs(parts[0][1].y - parts[0][0].y)) == 1
                if !ok { problems.append("\(tile): route \(route) should be a stub at \(stub), is \(parts)") }
                continue
            }
            for part in want.parts {
                if let k = parts.firstIndex(where: { $0.count == part.count && zip($0, part).allSatisfy(near) }) {
                    parts.remove(at: k)
                } else {
                    problems.append("\(tile): route \(route) lacks the part \(part); it has \(got.geometry.parts)")
                }
            }
            for part in parts { problems.append("\(tile): route \(route) has a part the reference lacks: \(part)") }
        }
        return problems
    }

    /// Within one tile unit on each axis: what rounding from slightly different arithmetic can move a point.
    package static func near(_ a: TilePoint, _ b: TilePoint) -> Bool {
        abs(Int(a.x) - Int(b.x)) <= 1 && abs(Int(a.y) - Int(b.y)) <= 1
    }

    /// The position of tile-unit point (u, v) of `tile`: for building routes that cross a tile where a test wants.
    package static func coordinate(_ tile: TileID, _ u: Double, _ v: Double, extent: Int = 4096) -> Coordinate {
        let size = WebMercator.tileSize(zoom: tile.z)
        return WebMercator.unproject(MapPoint(x: (Double(tile.x) + u / Double(extent)) * size,
                                              y: (Double(tile.y) + v / Double(extent)) * size))
    }
}

extension ReferenceClip {
    /// The differences between `tiler`'s on-demand tiles and the reference, for every tile of `zoom` that either
    /// reaches among `tiles` (all the reference reaches when nil).
    package static func onDemandDifferences(_ tiler: RouteTiler, zoom: Int, tiles: [TileID]? = nil) throws -> [String] {
        let reference = ReferenceClip(extent: tiler.options.extent, buffer: tiler.options.buffer)
        let expected = reference.cut(tiler.projected, zoom: zoom)
        let ids = tiler.projected.routeInfos.map(\.featureID)
        var problems: [String] = []
        for tile in tiles ?? Array(expected.keys) {
            let layer = try tiler.tile(z: tile.z, x: tile.x, y: tile.y)
                .flatMap { try VectorTileDecoder.decode($0).layer(named: tiler.options.layerName) }
            problems += differences(in: tile, layer: layer, expected: expected[tile] ?? [:], featureIDs: ids)
        }
        return problems
    }
}

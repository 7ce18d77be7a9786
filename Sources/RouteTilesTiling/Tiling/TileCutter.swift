@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// Cuts one tile: clips its spans to the buffered tile, simplifies, quantizes to tile units and adds one feature
/// per route (or per clipped part, with line metrics) to a layer.
///
/// Every crossing point is computed from the original segment (Liang–Barsky), never from an already clipped one,
/// so a tile's content depends only on its spans: the pyramid and the on-demand path give the same bytes.
/// Crossing points and part ends are always kept by simplification, so neighbouring tiles meet without seams.
/// One cutter per thread: it owns scratch buffers that are reused from tile to tile.
package struct TileCutter {
    /// A point of the part being built, before simplification and quantization.
    struct Candidate {
        var x: Double
        var y: Double
        var distance: Double
        /// Seconds since 1970, for a route cut in time pieces (0 otherwise).
        var time: Double
        var keep: Bool
    }

    let set: ProjectedRouteSet
    let importance: ImportanceColumn
    let options: TilingOptions
    /// Per route, its properties followed by `length_m`, built once.
    let featureProperties: [[Property]]
    /// For each layer of the set, the index of its layer builder (see `cut(_:spans:into:)` with several layers).
    let layerSlots: [Int]

    var candidates: [Candidate] = []
    var geometry = TileGeometry()
    var partProperties: [Property] = []
    /// The piece length of the tile being cut, in seconds (`TimePieces`).
    var pieceLength = 60.0
    /// While a route with times is cut: the piece of the part being built, and of the parts gathered in `geometry`.
    var partPiece: Piece?
    var geometryPiece: Piece?
    /// For a window tile: only the lines of routes with times, cut to this span of time (see `TimeWindow`).
    package var window: TimeWindow?

    init(set: ProjectedRouteSet, importance: ImportanceColumn, options: TilingOptions, featureProperties: [[Property]],
         layerSlots: [Int] = [0]) {
        self.set = set
        self.layerSlots = layerSlots
        self.importance = importance
        self.options = options
        self.featureProperties = featureProperties
    }

    /// Features of the tile `tile` built from `spans` (in span order), all added to `layer`. Returns how many.
    @discardableResult
    package mutating func cut(_ tile: TileID, spans: [SegmentSpan], into layer: inout VectorLayerBuilder) -> Int {
        cut(TileFrame(tile: tile, options: options), spans: spans, into: &layer)
    }

    /// Features of the tile `tile` built from `spans`, each added to the builder of its route's layer
    /// (`layerSlots`).
    @discardableResult
    package mutating func cut(_ tile: TileID, spans: [SegmentSpan], into layers: inout [VectorLayerBuilder]) -> Int {
        cut(TileFrame(tile: tile, options: options), spans: spans, into: &layers)
    }

    /// Features of the tile framed by `frame` (a Web Mercator or a WorldCRS84Quad tile) built from `spans`, all
    /// added to `layer`.
    @discardableResult
    package mutating func cut(_ frame: TileFrame, spans: [SegmentSpan], into layer: inout VectorLayerBuilder) -> Int {
        withUnsafeMutablePointer(to: &layer) { one in
            cut(frame, spans: spans, into: UnsafeMutableBufferPointer(start: one, count: 1), byLayer: false)
        }
    }

    /// Features of the tile framed by `frame` built from `spans`, each added to the builder of its route's layer.
    @discardableResult
    package mutating func cut(_ frame: TileFrame, spans: [SegmentSpan], into layers: inout [VectorLayerBuilder]) -> Int {
        layers.withUnsafeMutableBufferPointer { cut(frame, spans: spans, into: $0, byLayer: true) }
    }

    /// The one implementation of all: the spans of each route in turn (a route's spans are consecutive) are cut
    /// into `layers[0]`, or with `byLayer` into the builder of the route's layer. The builders are reached through
    /// a buffer so that one builder and an array of them take the same path without copying a builder.
    private mutating func cut(_ frame: TileFrame, spans: [SegmentSpan], into layers: UnsafeMutableBufferPointer<VectorLayerBuilder>,
                              byLayer: Bool) -> Int {
        let box = frame.box
        pieceLength = Double(TimePieces.seconds(zoom: frame.detailZoom))
        var added = 0
        var index = 0
        while index < spans.count {
            let route = Int(set.lineRoute[Int(spans[index].line)])
            var end = index + 1
            while end < spans.count, Int(set.lineRoute[Int(spans[end].line)]) == route { end += 1 }
            let slot = byLayer ? layerSlots[set.routeInfos[route].layer] : 0
            added += cutRoute(route, spans: spans[index..<end], box: box, frame: frame, into: &layers[slot])
            index = end
        }
        return added
    }

    /// The points of a point route that lie in the buffered tile, as one Point feature.
    private mutating func cutPoints(_ route: Int, spans: ArraySlice<SegmentSpan>, box: MapRect, frame: TileFrame,
                                    into layer: inout VectorLayerBuilder) -> Int {
        geometry.removeAll()
        geometry.kind = .point
        defer { geometry.kind = .lineString }
        for span in spans {
            let dx = Double(span.shift) * WebMercator.worldSize
            for i in Int(span.first)..<Int(span.end) where set.xs[i] == set.xs[i + 1] && set.ys[i] == set.ys[i + 1] {
                let x = set.xs[i] + dx, y = set.ys[i]
                guard x >= box.minX, x <= box.maxX, y >= box.minY, y <= box.maxY else { continue }
                if let window, !(set.times[i] >= window.fromSeconds && set.times[i] <= window.toSeconds) { continue }
                geometry.appendPart(CollectionOfOne(frame.quantize(x, y)))
            }
        }
        guard !geometry.isEmpty else { return 0 }
        let info = set.routeInfos[route]
        return layer.appendFeature(id: info.featureID, geometry: geometry, properties: featureProperties[route]) ? 1 : 0
    }

    /// The first part of a route that collapsed to one tile unit, kept in case nothing else of the route survives.
    struct Collapsed {
        var point: TilePoint
        var dx: Double
        var dy: Double
        var startDistance: Double
        var endDistance: Double
        var piece: Piece?
    }

    private mutating func cutRoute(_ route: Int, spans: ArraySlice<SegmentSpan>, box: MapRect, frame: TileFrame,
                                   into layer: inout VectorLayerBuilder) -> Int {
        if window != nil, !set.routeInfos[route].hasTimes { return 0 }
        if set.routeInfos[route].isPoint {
            return cutPoints(route, spans: spans, box: box, frame: frame, into: &layer)
        }
        geometry.removeAll()
        candidates.removeAll(keepingCapacity: true)
        var collapsed: Collapsed?
        var added = 0
        var open = false
        var lastSegment = -2, lastLine: Int32 = -1, lastShift: Int32 = 0
        let info = set.routeInfos[route]
        let timed = info.hasTimes && options.timePieces
        let from = window?.fromSeconds ?? 0, to = window?.toSeconds ?? 0
        partPiece = nil
        geometryPiece = nil

        for span in spans {
            let dx = Double(span.shift) * WebMercator.worldSize
            for i in Int(span.first)..<Int(span.end) {
                let ax = set.xs[i] + dx, ay = set.ys[i], bx = set.xs[i + 1] + dx, by = set.ys[i + 1]
                let ta = timed || window != nil ? set.times[i] : 0, tb = timed || window != nil ? set.times[i + 1] : 0
                guard let spatial = Self.clip(ax, ay, bx, by, to: box),
                      let (t0, t1) = window == nil ? spatial : Self.clip(spatial.0, spatial.1, ta, tb, from: from, to: to)
                else {
                    if open { added += closePart(route, frame: frame, collapsed: &collapsed, into: &layer); open = false }
                    continue
                }
                let da = set.distances[i], db = set.distances[i + 1]
                let continues = open && t0 == 0 && lastSegment == i - 1 && lastLine == span.line && lastShift == span.shift
                if !continues {
                    if open { added += closePart(route, frame: frame, collapsed: &collapsed, into: &layer) }
                    open = true
                    if t0 == 0 {
                        candidates.append(Candidate(x: ax, y: ay, distance: da, time: ta, keep: true))
                    } else {
                        candidates.append(Candidate(x: ax + (bx - ax) * t0, y: ay + (by - ay) * t0,
                                                    distance: da + (db - da) * t0, time: ta + (tb - ta) * t0, keep: true))
                    }
                    if timed { partPiece = nil }
                }
                if timed {
                    added += cutInTime(route, ax, ay, bx, by, da, db, ta, tb, t0, t1, frame: frame, collapsed: &collapsed,
                                       into: &layer)
                }
                if t1 == 1 {
                    candidates.append(Candidate(x: bx, y: by, distance: db, time: tb,
                                                keep: importance[i + 1] > frame.squaredTolerance))
                } else {
                    candidates.append(Candidate(x: ax + (bx - ax) * t1, y: ay + (by - ay) * t1,
                                                distance: da + (db - da) * t1, time: ta + (tb - ta) * t1, keep: true))
                    added += closePart(route, frame: frame, collapsed: &collapsed, into: &layer)
                    open = false
                }
                lastSegment = i
                lastLine = span.line
                lastShift = span.shift
            }
        }
        if open { added += closePart(route, frame: frame, collapsed: &collapsed, into: &layer) }

        if !options.lineMetrics, !geometry.isEmpty {
            let properties = timed ? pieceProperties(route, geometryPiece) : featureProperties[route]
            if layer.appendFeature(id: info.featureID, geometry: geometry, properties: properties) {
                added += 1
            }
        }
        if added == 0, let stub = collapsed {
            // The route touches this tile but every part of it is shorter than a tile unit here: keep it as a
            // two-point stub rather than letting it vanish.
            geometry.removeAll()
            geometry.points.append(stub.point)
            geometry.points.append(stubEnd(stub))
            geometry.partEnds.append(2)
            let properties = options.lineMetrics
                ? metricProperties(route, start: stub.startDistance, end: stub.endDistance, piece: stub.piece)
                : timed ? pieceProperties(route, stub.piece) : featureProperties[route]
            if layer.appendFeature(id: info.featureID, geometry: geometry, properties: properties) { added += 1 }
        }
        return added
    }

    /// Simplifies, quantizes and stores the part in `candidates`, then empties it.
    mutating func closePart(_ route: Int, frame: TileFrame, collapsed: inout Collapsed?,
                                    into layer: inout VectorLayerBuilder) -> Int {
        defer { candidates.removeAll(keepingCapacity: true) }
        guard let first = candidates.first, let last = candidates.last else { return 0 }
        var added = 0
        let piece = partPiece
        if options.lineMetrics {
            geometry.removeAll()
        } else if geometryPiece != piece, !geometry.isEmpty {
            // Parts of another time piece: the parts gathered so far are a feature of their own.
            let info = set.routeInfos[route]
            if layer.appendFeature(id: info.featureID, geometry: geometry, properties: pieceProperties(route, geometryPiece)) {
                added += 1
            }
            geometry.removeAll()
        }
        let start = geometry.points.count
        var previous = TilePoint(x: .min, y: .min)
        let lastIndex = candidates.count - 1
        for (k, c) in candidates.enumerated() where c.keep || k == lastIndex {
            let p = frame.quantize(c.x, c.y)
            if p != previous {
                geometry.points.append(p)
                previous = p
            }
        }
        if geometry.points.count - start < 2 {
            geometry.points.removeSubrange(start...)
            if collapsed == nil {
                collapsed = Collapsed(point: frame.quantize(first.x, first.y), dx: last.x - first.x, dy: last.y - first.y,
                                      startDistance: first.distance, endDistance: last.distance, piece: piece)
            }
            return added
        }
        geometry.partEnds.append(geometry.points.count)
        geometryPiece = piece
        guard options.lineMetrics else { return added }
        let info = set.routeInfos[route]
        let properties = metricProperties(route, start: first.distance, end: last.distance, piece: piece)
        return added + (layer.appendFeature(id: info.featureID, geometry: geometry, properties: properties) ? 1 : 0)
    }

    /// The route's properties with `start_m`, `end_m` and the fractions `mapbox_clip_start` / `mapbox_clip_end`,
    /// then `start_t` and `end_t` for a part of a time piece.
    private mutating func metricProperties(_ route: Int, start: Double, end: Double, piece: Piece?) -> [Property] {
        let length = set.routeInfos[route].lengthMetres
        partProperties.removeAll(keepingCapacity: true)
        partProperties.append(contentsOf: featureProperties[route])
        partProperties.append(Property("start_m", Self.metres(start)))
        partProperties.append(Property("end_m", Self.metres(end)))
        partProperties.append(Property("mapbox_clip_start", .double(length > 0 ? min(1, start / length) : 0)))
        partProperties.append(Property("mapbox_clip_end", .double(length > 0 ? min(1, end / length) : 1)))
        appendPiece(piece)
        return partProperties
    }

    /// A distance in metres as a tile value: rounded to centimetres.
    static func metres(_ value: Double) -> PropertyValue {
        .double((value * 100).rounded() / 100)
    }

    /// The second point of a stub: one unit from the first, along the part's main direction, inside the buffer.
    private func stubEnd(_ stub: Collapsed) -> TilePoint {
        var step = (x: Int32(1), y: Int32(0))
        if abs(stub.dy) > abs(stub.dx) {
            step = (0, stub.dy < 0 ? -1 : 1)
        } else if stub.dx < 0 {
            step = (-1, 0)
        }
        let high = Int32(options.extent + options.buffer)
        var end = TilePoint(x: stub.point.x + step.x, y: stub.point.y + step.y)
        if end.x > high || end.y > high || end.x < -Int32(options.buffer) || end.y < -Int32(options.buffer) {
            end = TilePoint(x: stub.point.x - step.x, y: stub.point.y - step.y)
        }
        return end
    }

    /// The part from `t0` to `t1` of a segment whose ends were recorded at `ta` and `tb` (seconds) that lies in the
    /// window from `from` to `to`, or nil when none of it does. A segment of no duration lies wholly in or out.
    @inline(__always)
    static func clip(_ t0: Double, _ t1: Double, _ ta: Double, _ tb: Double, from: Double, to: Double) -> (Double, Double)? {
        guard tb > ta else { return ta >= from && ta <= to ? (t0, t1) : nil }
        let u0 = max(t0, (from - ta) / (tb - ta)), u1 = min(t1, (to - ta) / (tb - ta))
        return u0 <= u1 ? (u0 == 0 ? 0 : u0, u1 == 1 ? 1 : u1) : nil
    }

    /// Liang–Barsky: the parameters `t0 ≤ t1` in 0...1 of the part of segment a→b inside `box` (edges included),
    /// or nil when none of it is. `t0` is exactly 0 when a is inside, `t1` exactly 1 when b is.
    @inline(__always)
    static func clip(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, to box: MapRect) -> (Double, Double)? {
        var t0 = 0.0, t1 = 1.0
        let dx = bx - ax, dy = by - ay
        @inline(__always) func edge(_ p: Double, _ q: Double) -> Bool {
            // The segment runs p·t toward the outside of this edge, q being a's distance inside it.
            if p == 0 { return q >= 0 }
            let r = q / p
            if p < 0 {
                if r > t1 { return false }
                if r > t0 { t0 = r }
            } else {
                if r < t0 { return false }
                if r < t1 { t1 = r }
            }
            return true
        }
        guard edge(-dx, ax - box.minX), edge(dx, box.maxX - ax), edge(-dy, ay - box.minY), edge(dy, box.maxY - ay)
        else { return nil }
        return (t0, t1)
    }
}

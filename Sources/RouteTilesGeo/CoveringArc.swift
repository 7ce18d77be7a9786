/// The shortest east-west stretch of the world that holds every span added, in map-point x: where a map of routes
/// that cross the antimeridian should be centred. Tokyo–San Francisco and Sydney–Los Angeles are held by about 100°
/// across the Pacific, not by the 360° from −180° to 180°.
///
/// A span is the x extent of one line, unwrapped as `AntimeridianUnwrap` leaves it (it may reach past either edge
/// of the world). The arc is the world without its widest gap between spans; of equal gaps, the one across ±180°
/// is left out first, so that routes that do not need the antimeridian do not get it.
package struct CoveringArc {
    /// Spans as given, their west moved by whole turns into `0..<worldSize`.
    private var spans: [(west: Double, east: Double)] = []
    private var wholeWorld = false

    package init() {}

    /// Adds a line that reaches from `minX` to `maxX` (unwrapped map-point x).
    package mutating func add(minX: Double, maxX: Double) {
        guard minX <= maxX, minX.isFinite, maxX.isFinite else { return }
        let world = WebMercator.worldSize
        guard maxX - minX < world else {
            wholeWorld = true
            return
        }
        var west = minX.truncatingRemainder(dividingBy: world)
        if west < 0 { west += world }
        spans.append((west, west + (maxX - minX)))
    }

    /// West and east edges in map-point x, `west` in `0..<worldSize` and `east` in `west...west + worldSize` (past
    /// `worldSize` when the arc crosses the antimeridian); nil when nothing was added.
    package var arc: (west: Double, east: Double)? {
        let world = WebMercator.worldSize
        if wholeWorld { return (0, world) }
        guard !spans.isEmpty else { return nil }
        // Spans cut at the antimeridian, sorted and merged: the covered parts of 0...world, west to east.
        var pieces: [(west: Double, east: Double)] = []
        for span in spans {
            if span.east <= world {
                pieces.append(span)
            } else {
                pieces.append((span.west, world))
                pieces.append((0, span.east - world))
            }
        }
        pieces.sort { $0.west < $1.west }
        var merged: [(west: Double, east: Double)] = []
        for piece in pieces {
            if let last = merged.last, piece.west <= last.east {
                merged[merged.count - 1].east = max(last.east, piece.east)
            } else {
                merged.append(piece)
            }
        }
        guard let first = merged.first, let last = merged.last else { return nil }
        // The gap across ±180° first, then each gap between neighbours; the arc is the world without the widest.
        var widest = world - last.east + first.west
        var result = (west: first.west, east: last.east)
        for i in merged.indices.dropLast() {
            let gap = merged[i + 1].west - merged[i].east
            if gap > widest {
                widest = gap
                result = (merged[i + 1].west, merged[i].east + world)
            }
        }
        if widest <= 0 { return (0, world) }
        return result
    }
}

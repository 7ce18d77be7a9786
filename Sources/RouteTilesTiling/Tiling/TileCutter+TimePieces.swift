@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// Time pieces (`TimePieces`): how the cutter cuts the line of a route with times where its time crosses a bound,
/// and the keys each piece's feature carries.
extension TileCutter {
    /// The time piece of a part: its `start_t` and `end_t` (see `TimePieces`), and with speed classes its segments'
    /// class in km/h.
    struct Piece: Equatable {
        var start: Double
        var end: Double
        var speed: Double?
    }

    /// For a route cut in time pieces, the part of segment a→b from `t0` to `t1` (its clip in this tile, which
    /// `candidates` has reached at `t0`): the part being built is closed and another begun wherever the segment's
    /// time crosses into another piece. Returns the features added.
    mutating func cutInTime(_ route: Int, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                            _ da: Double, _ db: Double, _ ta: Double, _ tb: Double, _ t0: Double, _ t1: Double,
                            frame: TileFrame, collapsed: inout Collapsed?,
                            into layer: inout VectorLayerBuilder) -> Int {
        let start = ta + (tb - ta) * t0, end = ta + (tb - ta) * t1
        let length = pieceLength
        var added = 0
        // The piece the segment's stretch from `start` lies in: a stretch of no duration stays in the open part's
        // piece when that piece holds its time.
        // With speed classes, the segment's class: its length over its duration; one of no duration takes the open
        // part's, so that a stop does not cut the line.
        var speed: Double?
        if let width = options.speedClasses, tb > ta {
            speed = ((db - da) / (tb - ta) * 3.6 / width).rounded(.down) * width
        }
        var first = Piece(start: (start / length).rounded(.down) * length, end: 0, speed: speed)
        first.end = first.start + length
        if end <= start, let open = partPiece, open.start <= start, start <= open.end { first = open }
        if let open = partPiece, open != first {
            // The segment begins another piece: the part ends here, and the next begins at the same point.
            let joint = candidates[candidates.count - 1]
            added += closePart(route, frame: frame, collapsed: &collapsed, into: &layer)
            candidates.append(Candidate(x: joint.x, y: joint.y, distance: joint.distance, time: joint.time, keep: true))
        }
        partPiece = first
        guard end > start, first.end < end else { return added }
        // Cut at the first bound after `start` and at the last before `end`: the stretch between them, all in
        // whole pieces with no position recorded inside (a gap), is one piece.
        let last = ((end / length).rounded(.up) - 1) * length
        var bound = first.end
        while true {
            let u = (bound - ta) / (tb - ta)
            let cut = Candidate(x: ax + (bx - ax) * u, y: ay + (by - ay) * u, distance: da + (db - da) * u, time: bound,
                                keep: true)
            candidates.append(cut)
            added += closePart(route, frame: frame, collapsed: &collapsed, into: &layer)
            candidates.append(cut)
            if bound >= last {
                partPiece = Piece(start: last, end: last + length, speed: first.speed)
                return added
            }
            partPiece = Piece(start: bound, end: last, speed: first.speed)
            bound = last
        }
    }

    /// The route's properties, then `start_t` and `end_t` of `piece`.
    mutating func pieceProperties(_ route: Int, _ piece: Piece?) -> [Property] {
        partProperties.removeAll(keepingCapacity: true)
        partProperties.append(contentsOf: featureProperties[route])
        appendPiece(piece)
        return partProperties
    }

    mutating func appendPiece(_ piece: Piece?) {
        guard let piece else { return }
        partProperties.append(Property("start_t", Self.seconds(piece.start)))
        partProperties.append(Property("end_t", Self.seconds(piece.end)))
        if let speed = piece.speed { partProperties.append(Property("speed", Self.seconds(speed))) }
    }

    /// Seconds since 1970 as a tile value: a whole number (unsigned while not before 1970).
    static func seconds(_ value: Double) -> PropertyValue {
        let whole = value.rounded()
        guard whole.isFinite, abs(whole) < 9e15 else { return .double(value) }
        return whole >= 0 ? .uint(UInt64(whole)) : .int(Int64(whole))
    }
}

import RouteTilesModel

/// A route's positions as read, kept by the memory route store in half the memory when they allow it: longitude and
/// latitude as whole ten-millionths of a degree (two `Int32`s, 8 bytes a position) when every position is exactly
/// such a number, as positions of up to seven decimals are; otherwise as they are (16 bytes a position). Either
/// way the positions read back are the very `Double`s that were packed.
struct PackedPositions: Sendable {
    /// Longitude and latitude in 1e-7 degrees, interleaved; used while `exact` is nil.
    private var tenMillionths: [Int32] = []
    /// The positions as they are, once one of them is not a whole number of ten-millionths.
    private var exact: [Coordinate]?
    /// Where each part ends, in positions.
    private var partEnds: [Int] = []

    init(_ parts: [[Coordinate]]) {
        let total = parts.reduce(0) { $0 + $1.count }
        tenMillionths.reserveCapacity(2 * total)
        partEnds.reserveCapacity(parts.count)
        for part in parts {
            append(part)
            partEnds.append(count)
        }
    }

    /// The number of positions.
    var count: Int { exact?.count ?? tenMillionths.count / 2 }

    /// The number of parts.
    var partCount: Int { partEnds.count }

    /// The positions, part by part.
    var parts: [[Coordinate]] {
        var parts: [[Coordinate]] = []
        parts.reserveCapacity(partEnds.count)
        var start = 0
        for end in partEnds {
            parts.append((start..<end).map(position))
            start = end
        }
        return parts
    }

    /// The last position of the last part.
    var last: Coordinate? { count > 0 && !partEnds.isEmpty ? position(count - 1) : nil }

    /// Extends the last part.
    mutating func appendToLastPart(_ points: [Coordinate]) {
        guard !partEnds.isEmpty else { return }
        append(points)
        partEnds[partEnds.count - 1] = count
    }

    private func position(_ i: Int) -> Coordinate {
        if let exact { return exact[i] }
        return Coordinate(longitude: Double(tenMillionths[2 * i]) / 1e7, latitude: Double(tenMillionths[2 * i + 1]) / 1e7)
    }

    private mutating func append(_ points: [Coordinate]) {
        if exact == nil {
            var packed: [Int32] = []
            packed.reserveCapacity(2 * points.count)
            for c in points {
                guard let lon = Self.tenMillionths(c.longitude), let lat = Self.tenMillionths(c.latitude) else {
                    // One position that does not pack: keep them all as they are from now on.
                    exact = (0..<count).map(position)
                    exact?.append(contentsOf: points)
                    tenMillionths = []
                    return
                }
                packed.append(lon)
                packed.append(lat)
            }
            tenMillionths.append(contentsOf: packed)
        } else {
            exact?.append(contentsOf: points)
        }
    }

    /// `degrees` as a whole number of ten-millionths, when that number gives back exactly `degrees`.
    static func tenMillionths(_ degrees: Double) -> Int32? {
        let scaled = (degrees * 1e7).rounded()
        guard abs(scaled) <= Double(Int32.max) else { return nil }
        let n = Int32(scaled)
        return (Double(n) / 1e7).bitPattern == degrees.bitPattern ? n : nil
    }
}

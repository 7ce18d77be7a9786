import RouteTilesModel

/// Makes a line's longitudes continuous: where two consecutive positions are more than 180° apart, the line is
/// taken the short way across ±180°, by shifting the rest of the line a whole turn. The result may leave ±180°
/// (a flight from Tokyo to Los Angeles runs on to 241.6°E); the projection and the tiler handle that.
enum AntimeridianUnwrap {
    static func unwrapped(_ line: [Coordinate]) -> [Coordinate] {
        guard var previous = line.first?.longitude else { return line }
        var result = line
        var offset = 0.0
        for i in 1..<line.count {
            let raw = line[i].longitude
            offset = nextOffset(offset, longitude: raw, after: previous)
            result[i].longitude = raw + offset
            previous = result[i].longitude
        }
        return result
    }

    /// The whole turns to add to `longitude` (as read) so that it lies within 180° of `previous` (as unwrapped),
    /// starting from the offset of the position before.
    @inline(__always)
    static func nextOffset(_ offset: Double, longitude: Double, after previous: Double) -> Double {
        let delta = longitude + offset - previous
        if delta > 180 { return offset - 360 * ((delta + 180) / 360).rounded(.down) }
        if delta < -180 { return offset + 360 * ((-delta + 180) / 360).rounded(.down) }
        return offset
    }
}

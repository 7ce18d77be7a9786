import RouteTilesModel

/// Where a route with times was at an instant: its position interpolated between the two positions around that time
/// (along the great circle for a geodesic route), with the segment's bearing and speed.
public enum TimedTrack {
    /// A route's place at an instant.
    public struct Place: Sendable, Equatable {
        public var position: Coordinate
        /// The instant asked for (milliseconds since 1970).
        public var time: Int64
        /// Initial bearing of the segment the position is on, in degrees clockwise from north.
        public var bearing: Double
        /// The segment's geodesic length over its duration, in m/s (0 for a segment of no duration).
        public var speed: Double
        /// The index of the part the position is on.
        public var part: Int
    }

    /// Why a route has no place at an instant.
    public enum Absence: Error, Sendable, Equatable {
        /// The route has no times.
        case noTimes
        /// The instant is outside the track's span (`first` to `last`).
        case outside(first: Int64, last: Int64)
        /// The instant falls between two parts, from the end of one (`from`) to the start of the next (`to`).
        case gap(from: Int64, to: Int64)
    }

    /// Where `route` was at `time`. At a position's own time, the segment that starts there is used (the one that
    /// ends there for the last position of a part).
    public static func place(of route: Route, at time: Int64) -> Result<Place, Absence> {
        guard let times = route.times, times.count == route.pointCount, let first = times.first, let last = times.last else {
            return .failure(.noTimes)
        }
        guard time >= first, time <= last else { return .failure(.outside(first: first, last: last)) }
        var start = 0
        for (partIndex, part) in route.parts.enumerated() {
            let partTimes = times[start..<(start + part.count)]
            defer { start += part.count }
            guard let partFirst = partTimes.first, let partLast = partTimes.last, time <= partLast else { continue }
            if time < partFirst {
                // Past the previous part's end, before this part's start.
                return .failure(.gap(from: times[start - 1], to: partFirst))
            }
            guard part.count >= 2 else {
                return .success(Place(position: part[0], time: time, bearing: 0, speed: 0, part: partIndex))
            }
            // The segment [i, i + 1] with times[i] <= time < times[i + 1], or the last one.
            var low = 0, high = part.count - 1
            while low < high {
                let mid = (low + high) / 2
                if partTimes[partTimes.startIndex + mid] <= time { low = mid + 1 } else { high = mid }
            }
            let i = max(0, min(low - 1, part.count - 2))
            let (a, b) = (part[i], part[i + 1])
            let (ta, tb) = (partTimes[partTimes.startIndex + i], partTimes[partTimes.startIndex + i + 1])
            let fraction = tb > ta ? Double(time - ta) / Double(tb - ta) : 0
            let position: Coordinate
            if route.geodesic {
                position = GeodesicLine(from: a, to: b).point(at: fraction)
            } else {
                position = Coordinate(longitude: a.longitude + (b.longitude - a.longitude) * fraction,
                                      latitude: a.latitude + (b.latitude - a.latitude) * fraction)
            }
            let metres = GeodesicDistance.metres(a, b)
            let speed = tb > ta ? metres / (Double(tb - ta) / 1000) : 0
            return .success(Place(position: position, time: time, bearing: Bearing.initial(a, b), speed: speed,
                                  part: partIndex))
        }
        return .failure(.outside(first: first, last: last))
    }
}

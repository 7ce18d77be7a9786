import RouteTilesModel

/// A route as the tiler draws it: its lines (see `ProjectedRouteSet.drawnLines`) and, for a route with times, the
/// time of every drawn position.
public struct DrawnRoute: Sendable {
    /// Each part of two or more positions (one position twice for a point route), densified along the geodesic for
    /// a geodesic route and unwrapped across the antimeridian.
    public var lines: [[Coordinate]]
    /// For a route with times: per line, the time of each of its positions in seconds since 1970 (fractions for
    /// milliseconds). The positions a geodesic adds between two of the route's get times interpolated by distance
    /// along it. Nil for a route without times.
    public var times: [[Double]]?

    /// How `route` is drawn with `geodesicTolerance` (see `ProjectedRouteSet.init(routes:geodesicTolerance:)`).
    public init(_ route: Route, geodesicTolerance: Double) {
        let isPoint = route.kind == .point
        let timed = route.times != nil && route.timeProblem() == nil
        lines = []
        var times: [[Double]] = []
        for (index, part) in route.parts.enumerated() where isPoint ? part.count >= 1 : part.count >= 2 {
            let partTimes = timed ? route.times(ofPart: index).map { Double($0) / 1000 } : []
            if isPoint {
                lines.append([part[0], part[0]])
                if timed { times.append([partTimes[0], partTimes[0]]) }
            } else if route.geodesic {
                var originals: [Int]? = timed ? [] : nil
                let line = AntimeridianUnwrap.unwrapped(
                    GeodesicDensifier.densified(part, tolerance: geodesicTolerance, originals: &originals))
                lines.append(line)
                if let originals { times.append(Self.interpolated(partTimes, at: originals, along: line)) }
            } else {
                lines.append(AntimeridianUnwrap.unwrapped(part))
                if timed { times.append(partTimes) }
            }
        }
        self.times = timed ? times : nil
    }

    /// The times of every position of `line`, whose positions `originals` have `times`: those between two of them
    /// get times in proportion to the distance travelled from the first.
    static func interpolated(_ times: [Double], at originals: [Int], along line: [Coordinate]) -> [Double] {
        var out = [Double](repeating: 0, count: line.count)
        for k in originals.indices {
            out[originals[k]] = times[k]
            guard k + 1 < originals.count, originals[k + 1] > originals[k] + 1 else { continue }
            let first = originals[k], last = originals[k + 1]
            var travelled = [Double](repeating: 0, count: last - first + 1)
            for i in first..<last {
                travelled[i - first + 1] = travelled[i - first] + GeodesicDistance.metres(line[i], line[i + 1])
            }
            let total = travelled[last - first]
            for i in (first + 1)..<last {
                let fraction = total > 0 ? travelled[i - first] / total : 0
                out[i] = times[k] + (times[k + 1] - times[k]) * fraction
            }
        }
        return out
    }
}

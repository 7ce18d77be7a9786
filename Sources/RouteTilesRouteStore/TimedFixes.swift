import RouteTilesModel

/// Fixes with times on their way into a route that keeps a time on every position: put in time order, a fix whose
/// time the route holds already dropped as a duplicate (a client's retry: the device's time is a fix's identity),
/// and either appended (every fix after the route's last) or merged into the route's timeline (a late fix).
package struct TimedFixes: Sendable, Equatable {
    package var points: [Coordinate]
    package var times: [Int64]

    /// `points` with their `times`, sorted by time (stable), keeping the first of fixes that share a time.
    package init(points: [Coordinate], times: [Int64]) {
        let order = times.indices.sorted { (times[$0], $0) < (times[$1], $1) }
        var points_: [Coordinate] = []
        var times_: [Int64] = []
        points_.reserveCapacity(order.count)
        times_.reserveCapacity(order.count)
        for index in order where index < points.count && times_.last != times[index] {
            points_.append(points[index])
            times_.append(times[index])
        }
        self.points = points_
        self.times = times_
    }

    private init(sorted points: [Coordinate], _ times: [Int64]) {
        self.points = points
        self.times = times
    }

    /// How fixes meet a route whose last position is at `lastTime`.
    package enum Plan: Sendable, Equatable {
        /// Every fix left is after the route's last: appended as they are (`duplicates` were at its last time).
        case append(TimedFixes, duplicates: Int)
        /// A fix falls before the route's last: the route is read and the fixes merged into it.
        case merge
    }

    /// Whether the fixes append to a route whose last time is `lastTime`, or must be merged into it.
    package func plan(after lastTime: Int64?) -> Plan {
        guard let lastTime, let first = times.first, first <= lastTime else { return .append(self, duplicates: 0) }
        let start = times.firstIndex { $0 > lastTime } ?? times.count
        // Only the route's last time itself is known without reading the route: any earlier fix is a merge.
        guard times[..<start].allSatisfy({ $0 == lastTime }) else { return .merge }
        return .append(TimedFixes(sorted: Array(points[start...]), Array(times[start...])), duplicates: start)
    }

    /// `route` (with times) with these fixes in its timeline: a fix at a time the route holds is dropped; one before
    /// the first position starts the first part, one in the gap between two parts ends the earlier part, any other
    /// goes between the positions around its time. Nil when every fix was a duplicate. The count of duplicates.
    package func merged(into route: Route) -> (route: Route?, duplicates: Int) {
        guard let held = route.times, held.count == route.pointCount, !route.parts.isEmpty else { return (nil, 0) }
        // Where each part starts in the flattened positions.
        var starts: [Int] = []
        var start = 0
        for part in route.parts {
            starts.append(start)
            start += part.count
        }
        var added: [[(time: Int64, point: Coordinate)]] = Array(repeating: [], count: route.parts.count)
        var duplicates = 0
        for (point, time) in zip(points, times) {
            // The first stored position later than the fix.
            var low = 0, high = held.count
            while low < high {
                let mid = (low + high) / 2
                if held[mid] <= time { low = mid + 1 } else { high = mid }
            }
            if low > 0, held[low - 1] == time {
                duplicates += 1
                continue
            }
            // The part of the position before the fix (the first part when there is none).
            let before = max(0, low - 1)
            let part = (starts.lastIndex { $0 <= before }) ?? 0
            added[part].append((time, point))
        }
        guard duplicates < points.count else { return (nil, duplicates) }
        var merged = route
        var mergedTimes: [Int64] = []
        mergedTimes.reserveCapacity(held.count + points.count - duplicates)
        for (index, part) in route.parts.enumerated() {
            let partTimes = held[starts[index]..<(starts[index] + part.count)]
            guard !added[index].isEmpty else {
                mergedTimes += partTimes
                continue
            }
            var line: [Coordinate] = []
            line.reserveCapacity(part.count + added[index].count)
            var i = 0, j = 0
            let fixes = added[index]
            let partStart = partTimes.startIndex
            while i < part.count || j < fixes.count {
                if j == fixes.count || (i < part.count && partTimes[partStart + i] < fixes[j].time) {
                    line.append(part[i])
                    mergedTimes.append(partTimes[partStart + i])
                    i += 1
                } else {
                    line.append(fixes[j].point)
                    mergedTimes.append(fixes[j].time)
                    j += 1
                }
            }
            merged.parts[index] = line
        }
        merged.times = mergedTimes
        return (merged, duplicates)
    }
}

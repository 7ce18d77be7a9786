import RouteTilesGeo
import RouteTilesModel

/// The planned time at each vertex of a directions route: a departure plus the durations the response gives, per
/// segment (OSRM's `annotation.duration`) or per step (spread over the step's line in proportion to the geodesic
/// length of each segment).
///
/// Offsets are kept in seconds as `Double` while they add up, and turned into whole milliseconds once at the end,
/// so that rounding never accumulates: each vertex's time is the departure plus the exact cumulative duration,
/// rounded to the millisecond.
struct PlannedTimes {
    /// A step's stretch of the line, `begin...end` (vertex indexes), and how long it takes in seconds.
    struct Span {
        var begin: Int
        var end: Int
        var duration: Double
    }

    /// Steps' lines joined into one line, and where each step lies on it.
    struct JoinedSteps {
        var line: [Coordinate] = []
        /// One per step, in order; nil for a step without a line.
        var spans: [Span?] = []

        /// Adds a step's line: it continues the line when it starts where the line ends (as steps do), else it
        /// starts a stretch of its own after a gap of no duration. A position repeating the one before it is
        /// left out (OSRM's arrival steps are two equal positions).
        mutating func append(_ stepLine: [Coordinate], duration: Double) {
            guard let first = stepLine.first else {
                spans.append(nil)
                return
            }
            let begin = line.last == first ? line.count - 1 : line.count
            for position in stepLine where position != line.last { line.append(position) }
            spans.append(Span(begin: begin, end: line.count - 1, duration: duration))
        }

        /// The times of the joined line from `departure`, each step's duration spread over its stretch.
        func times(departure: Int64) -> [Int64]? {
            PlannedTimes.times(departure: departure,
                               offsets: PlannedTimes.offsets(line: line, spans: spans.compactMap { $0 }).offsets)
        }

        /// The times of step `index`'s stretch, from the joined line's times.
        func stepTimes(_ index: Int, in times: [Int64]?) -> ArraySlice<Int64>? {
            guard let times, spans.indices.contains(index), let span = spans[index], span.end < times.count else {
                return nil
            }
            return times[span.begin...span.end]
        }
    }

    /// The offset in seconds from the departure of each vertex of `line`, from segment durations (one per segment:
    /// `durations.count == line.count - 1`).
    static func offsets(segmentDurations durations: [Double]) -> [Double] {
        var offsets = [0.0]
        offsets.reserveCapacity(durations.count + 1)
        var clock = 0.0
        for duration in durations {
            clock += duration
            offsets.append(clock)
        }
        return offsets
    }

    /// The offset in seconds of each vertex of `line`, starting at `start`, from spans in line order: each span's
    /// duration spread over its segments in proportion to their geodesic lengths (evenly when the span has no
    /// length). Vertices no span covers add no time; a span of one vertex (an arrival) adds its duration after
    /// that vertex. Spans that go back or lie outside the line are left out. `end` is the clock after the last
    /// span, where a following line (the next leg) starts.
    static func offsets(line: [Coordinate], spans: [Span], start: Double = 0) -> (offsets: [Double], end: Double) {
        guard !line.isEmpty else { return ([], start) }
        var offsets = [Double](repeating: start, count: line.count)
        var cursor = 0
        var clock = start
        for span in spans where span.begin >= cursor && span.end >= span.begin && span.end < line.count {
            while cursor < span.begin {
                cursor += 1
                offsets[cursor] = clock
            }
            if span.end > span.begin {
                var lengths: [Double] = []
                lengths.reserveCapacity(span.end - span.begin)
                var total = 0.0
                for index in span.begin..<span.end {
                    let length = GeodesicDistance.metres(line[index], line[index + 1])
                    lengths.append(length)
                    total += length
                }
                var travelled = 0.0
                for (k, length) in lengths.enumerated() {
                    travelled += length
                    let share = total > 0 ? travelled / total : Double(k + 1) / Double(lengths.count)
                    offsets[span.begin + k + 1] = clock + span.duration * share
                }
                offsets[span.end] = clock + span.duration
                cursor = span.end
            }
            clock += span.duration
        }
        while cursor < line.count - 1 {
            cursor += 1
            offsets[cursor] = clock
        }
        return (offsets, clock)
    }

    /// Times in milliseconds since 1970 from a departure and offsets in seconds; nil when one would fall after
    /// the end of year 9999.
    static func times(departure: Int64, offsets: [Double]) -> [Int64]? {
        var times: [Int64] = []
        times.reserveCapacity(offsets.count)
        for offset in offsets {
            let milliseconds = (offset * 1000).rounded()
            guard milliseconds.isFinite, milliseconds >= 0,
                  milliseconds <= Double(TimeValue.latest - departure) else { return nil }
            times.append(departure + Int64(milliseconds))
        }
        return times
    }

}

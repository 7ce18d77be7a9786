import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// Where a route with times was at an instant, against a reference interpolation written apart.
@Suite struct TimedTrackTests {
    /// Property: at 1,000 random instants (vertices, gaps and outside the span among them), the place is the linear
    /// interpolation between the positions around the instant, or the absence says why there is none.
    @Test func placesAreTheLinearInterpolationAroundTheInstant() throws {
        var rng = SeededGenerator(seed: 3508)
        for _ in 0..<20 {
            var time: Int64 = 1_795_788_300_000
            var parts: [[Coordinate]] = []
            var times: [Int64] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                time += Int64.random(in: 10_000...600_000, using: &rng)  // a gap between parts
                let part = Sample.track(count: Int.random(in: 2...50, using: &rng), lon: 2.35, lat: 48.85, step: 0.0005, using: &rng)
                for _ in part {
                    times.append(time)
                    time += Int64.random(in: 0...20_000, using: &rng)
                }
                parts.append(part)
            }
            let route = Route(parts: parts, times: times)
            let flat = parts.flatMap { $0 }
            let partOf = parts.enumerated().flatMap { index, part in Array(repeating: index, count: part.count) }
            for _ in 0..<50 {
                let at = Bool.random(using: &rng) ? times.randomElement(using: &rng) ?? 0
                    : Int64.random(in: (times[0] - 5_000)...(times[times.count - 1] + 5_000), using: &rng)
                let result = TimedTrack.place(of: route, at: at)
                // The reference: the last position at or before the instant, and the next one in its part.
                guard at >= times[0], at <= times[times.count - 1] else {
                    #expect(result == .failure(.outside(first: times[0], last: times[times.count - 1])))
                    continue
                }
                let i = (times.lastIndex { $0 <= at } ?? 0)
                if i + 1 < flat.count, partOf[i + 1] != partOf[i], at > times[i] {
                    #expect(result == .failure(.gap(from: times[i], to: times[i + 1])), "at \(at)")
                    continue
                }
                guard case let .success(place) = result else {
                    Issue.record("no place at \(at): \(result)")
                    continue
                }
                // The segment: from i to i + 1 in the same part, or the last of the part when i ends it.
                let a = (i + 1 < flat.count && partOf[i + 1] == partOf[i]) ? i : i - 1
                let (ta, tb) = (times[a], times[a + 1])
                let f = tb > ta ? Double(at - ta) / Double(tb - ta) : 0
                let expected = Coordinate(longitude: flat[a].longitude + (flat[a + 1].longitude - flat[a].longitude) * f,
                                          latitude: flat[a].latitude + (flat[a + 1].latitude - flat[a].latitude) * f)
                #expect(abs(place.position.longitude - expected.longitude) < 1e-9 && abs(place.position.latitude - expected.latitude) < 1e-9,
                        "at \(at): \(place.position) against \(expected)")
                #expect(place.part == partOf[a] && place.time == at)
                #expect(place.speed >= 0 && (0..<360).contains(place.bearing))
            }
        }
        #expect(TimedTrack.place(of: Route(parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 1, latitude: 0)]]),
                                 at: 0) == .failure(.noTimes))
    }

    @Test func speedAndBearingAreTheSegments() throws {
        // 0.01° of longitude east along the equator (1,113.2 m) in 100 s.
        let route = Route(parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 0.01, latitude: 0)]],
                          times: [0, 100_000])
        guard case let .success(place) = TimedTrack.place(of: route, at: 25_000) else {
            Issue.record("no place")
            return
        }
        #expect(abs(place.position.longitude - 0.0025) < 1e-12 && place.position.latitude == 0)
        #expect(abs(place.bearing - 90) < 1e-9)
        #expect(abs(place.speed - 11.1) < 0.05, "\(place.speed)")
    }
}

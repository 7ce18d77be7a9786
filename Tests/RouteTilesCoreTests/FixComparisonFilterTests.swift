import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// The filters that compare a fix with the last one kept (Traccar's maxSpeed, minPeriod and duplicate).
@Suite struct FixComparisonFilterTests {
    /// 0.001° of latitude is 111.2 m.
    func north(_ steps: Double) -> Coordinate { Coordinate(longitude: 2.35, latitude: 48.85 + steps * 0.001) }

    @Test func eachFixIsComparedWithTheLastKept() {
        let filter = FixFilter(maxSpeed: 50, minPeriod: 5_000, dropRepeated: true)
        let last = (position: north(0), time: Int64(1_000_000))
        // In time order (sent out of order): 10 s later 111 m (11 m/s, kept); 2 s after that (period); at the same
        // place 20 s later (repeated); 10 s later 10 km away (1,100 m/s: speed); 10 s later 222 m from the last kept
        // (22 m/s, kept: compared with the last kept, not with the dropped jump); one before `last` (left to the store).
        var points = [north(3), north(1), north(1.01), north(1), north(90), north(-5)]
        var times: [Int64] = [1_050_000, 1_010_000, 1_012_000, 1_030_000, 1_040_000, 999_000]
        let dropped = filter.filterAgainstLast(&points, times: &times, last: last)
        #expect(dropped == FixFilter.Dropped(speed: 1, period: 1, repeated: 1))
        #expect(points == [north(3), north(1), north(-5)])
        #expect(times == [1_050_000, 1_010_000, 999_000])
    }

    @Test func withoutALastFixTheFirstOfTheListIsKept() {
        var points = [north(0), north(100)]
        var times: [Int64] = [0, 1_000]
        let dropped = FixFilter(maxSpeed: 100).filterAgainstLast(&points, times: &times, last: nil)
        #expect(dropped.speed == 1 && points == [north(0)] && times == [0])
        var untouched = [north(0)]
        var untouchedTimes: [Int64] = [0]
        #expect(FixFilter().filterAgainstLast(&untouched, times: &untouchedTimes, last: nil).total == 0)
    }

    @Test func speedsAreReadAsPeopleWriteThem() throws {
        #expect(try #require(FixFilter.speed("300km/h")) - 83.333 < 0.001)
        #expect(FixFilter.speed("80kn").map { abs($0 - 41.155) < 0.001 } == true)
        #expect(FixFilter.speed("50m/s") == 50 && FixFilter.speed("50") == 50)
        for bad in ["", "fast", "-3km/h", "0", "km/h"] { #expect(FixFilter.speed(bad) == nil, "\(bad)") }
    }
}

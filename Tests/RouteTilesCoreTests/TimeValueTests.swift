import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// Times read from ISO 8601 text and Unix seconds, written back as ISO 8601 UTC; a route's times checked.
@Suite struct TimeValueTests {
    @Test func readsTheFormsOfRFC3339() throws {
        let base: Int64 = 1_795_788_300_000  // 2026-11-27T14:05:00Z
        #expect(try TimeValue.parse("2026-11-27T14:05:00Z") == base)
        #expect(try TimeValue.parse("2026-11-27t14:05:00z") == base)
        #expect(try TimeValue.parse("2026-11-27 14:05:00Z") == base)
        #expect(try TimeValue.parse("2026-11-27T15:05:00+01:00") == base)
        #expect(try TimeValue.parse("2026-11-27T15:05:00+0100") == base)
        #expect(try TimeValue.parse("2026-11-27T09:35:00-04:30") == base)
        #expect(try TimeValue.parse("2026-11-27T14:05:00.25Z") == base + 250)
        #expect(try TimeValue.parse("2026-11-27T14:05:00.1234Z") == base + 123)
        #expect(try TimeValue.parse("2026-11-27T14:05:00.1235Z") == base + 124)
        #expect(try TimeValue.parse("2026-11-27T14:05:00.999999Z") == base + 1000)
        #expect(try TimeValue.parse("2026-11-27T14:04:60Z") == base)
        #expect(try TimeValue.parse("1970-01-01T00:00:00Z") == 0)
        #expect(try TimeValue.parse("2024-02-29T00:00:00Z") == 1_709_164_800_000)
        #expect(try TimeValue.parse("2026-11-27T14:05:00", zoneless: .utc) == base)
    }

    @Test func refusesWhatIsNotATimeWithAMessage() {
        for text in ["", "yesterday", "14:05", "2026-11-27", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
                     "2026-11-27T24:00:00Z", "2026-11-27T14:05:00+25:00", "2026-11-27T14:05:00Zjunk",
                     "2026-11-27T14:05:00.Z", "2026/11/27T14:05:00Z"] {
            #expect(throws: TimeValueError.self, "\(text)") { try TimeValue.parse(text) }
        }
        #expect(throws: TimeValueError(text: "2026-11-27T14:05:00", reason: .noZone)) {
            try TimeValue.parse("2026-11-27T14:05:00")
        }
        #expect(throws: TimeValueError(text: "1969-12-31T23:59:59Z", reason: .outOfRange)) {
            try TimeValue.parse("1969-12-31T23:59:59Z")
        }
        let message = TimeValueError(text: "yesterday", reason: .notATime).description
        #expect(message.contains("'yesterday'") && message.contains("ISO 8601"))
    }

    @Test func readsUnixSecondsWhereANumberIsAllowed() throws {
        #expect(try TimeValue.parse(textOrSeconds: "1795788300") == 1_795_788_300_000)
        #expect(try TimeValue.parse(textOrSeconds: "1795788300.5") == 1_795_788_300_500)
        #expect(try TimeValue.parse(textOrSeconds: "2026-11-27T14:05:00Z") == 1_795_788_300_000)
        #expect(throws: TimeValueError.self) { try TimeValue.parse(textOrSeconds: "-5") }
        #expect(throws: TimeValueError.self) { try TimeValue.parse(textOrSeconds: "1e20") }
        #expect(TimeValue.seconds(.nan) == nil && TimeValue.seconds(.infinity) == nil)
        #expect(TimeValue.seconds(0.0004) == 0 && TimeValue.seconds(0.0006) == 1)
    }

    @Test func writesISOUTCWithMillisecondsOnlyWhenThereAreAny() {
        #expect(TimeValue.iso(1_795_788_300_000) == "2026-11-27T14:05:00Z")
        #expect(TimeValue.iso(1_795_788_300_250) == "2026-11-27T14:05:00.250Z")
        #expect(TimeValue.iso(1_795_788_300_007) == "2026-11-27T14:05:00.007Z")
        #expect(TimeValue.iso(0) == "1970-01-01T00:00:00Z")
        #expect(TimeValue.iso(TimeValue.latest) == "9999-12-31T23:59:59.999Z")
    }

    /// Property: writing then reading gives the same millisecond, over 1970–9999; and dates agree with Foundation's.
    @Test func formatThenParseIsTheIdentity() throws {
        var rng = SeededGenerator(seed: 35)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: TimeValue.earliest...TimeValue.latest, using: &rng)
            let text = TimeValue.iso(milliseconds)
            #expect(try TimeValue.parse(text) == milliseconds, "\(text)")
            let date = Date(timeIntervalSince1970: Double(milliseconds / 1000))
            #expect(formatter.string(from: date) == TimeValue.iso(milliseconds / 1000 * 1000), "\(milliseconds)")
        }
    }

    @Test func readsDurationsAsPeopleWriteThem() {
        #expect(TimeValue.duration("90m") == 5_400_000)
        #expect(TimeValue.duration("2h") == 7_200_000)
        #expect(TimeValue.duration("7d") == 604_800_000)
        #expect(TimeValue.duration("45s") == 45_000)
        #expect(TimeValue.duration("30") == 30_000)
        #expect(TimeValue.duration("1.5h") == 5_400_000)
        for bad in ["", "h", "-2h", "0m", "2w", "two hours"] { #expect(TimeValue.duration(bad) == nil, "\(bad)") }
    }

    @Test func aRouteHasATimeOnEveryPositionOrOnNoneAndNeverGoesBack() {
        let parts = [[Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.4, latitude: 48.9)],
                     [Coordinate(longitude: 2.5, latitude: 48.8), Coordinate(longitude: 2.6, latitude: 48.9)]]
        #expect(Route(parts: parts).timeProblem() == nil)
        #expect(Route(parts: parts, times: [0, 1000, 1000, 5000]).timeProblem() == nil)
        #expect(Route(parts: parts, times: [0, 1000, 2000]).timeProblem() == "3 times for 4 positions")
        let backwards = Route(parts: parts, times: [0, 3000, 2000, 5000]).timeProblem() ?? ""
        #expect(backwards.hasPrefix("part 1, position 0: time 1970-01-01T00:00:02Z is before"), "\(backwards)")
        #expect(Route(parts: parts, times: [-1, 0, 1, 2]).timeProblem()?.hasPrefix("part 0, position 0") == true)
        #expect(Array(Route(parts: parts, times: [0, 1000, 2000, 5000]).times(ofPart: 1)) == [2000, 5000])
        #expect(Route(parts: parts).times(ofPart: 0).isEmpty)
    }
}

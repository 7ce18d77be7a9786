import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// Times in GeoJSON: `properties.coordTimes` and `properties.coordinateProperties.times` on features, and timed
/// Point features of NDJSON streams read as tracks.
@Suite struct GeoJSONTimesTests {
    func read(_ text: String, options: ReadOptions = ReadOptions()) throws -> ReadResult {
        try RouteReader.read(bytes: Array(text.utf8), name: "t.geojson", format: .geojson, options: options)
    }

    /// The error of a strict read (`--times strict`).
    func readError(_ text: String, options: ReadOptions = ReadOptions(times: .strict)) -> String? {
        inputError { _ = try read(text, options: options) }?.description
    }

    func feature(_ geometry: String, properties: String) -> String {
        #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":\#(properties),"geometry":\#(geometry)}]}"#
    }

    let line = #"{"type":"LineString","coordinates":[[1,2],[3,4],[5,6]]}"#
    let multi = #"{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8],[9,10]]]}"#
    let t0: Int64 = 1_795_788_300_000

    @Test func coordTimesOfALineStringBecomeTheRouteTimesAndLeaveTheProperties() throws {
        let result = try read(feature(line, properties: #"{"name":"a","coordTimes":["2026-11-27T14:05:00Z",1795788301.5,"2026-11-27T15:05:02+01:00"]}"#))
        let route = try #require(result.routes.first)
        #expect(route.times == [t0, t0 + 1500, t0 + 2000])
        #expect(route.properties.map(\.key) == ["name"])
        #expect(route.timeProblem() == nil)
    }

    @Test func coordinatePropertiesTimesWinAndTheOtherMembersStay() throws {
        let properties = #"{"coordinateProperties":{"heart":[1,2,3],"times":["2026-11-27T14:05:00Z","2026-11-27T14:05:01Z","2026-11-27T14:05:02Z"]}}"#
        let route = try #require(try read(feature(line, properties: properties)).routes.first)
        #expect(route.times == [t0, t0 + 1000, t0 + 2000])
        #expect(route.properties == [Property("coordinateProperties", .string(#"{"heart":[1,2,3]}"#))])
    }

    @Test func aMultiLineStringTakesAnArrayPerPartOrOneFlatArray() throws {
        let nested = #"{"coordTimes":[["2026-11-27T14:05:00Z","2026-11-27T14:05:01Z"],[1795788302,1795788303,1795788304]]}"#
        let flat = #"{"coordTimes":[1795788300,1795788301,1795788302,1795788303,1795788304]}"#
        for properties in [nested, flat] {
            let route = try #require(try read(feature(multi, properties: properties)).routes.first)
            #expect(route.times == (0..<5).map { t0 + Int64($0) * 1000 })
            #expect(route.properties.isEmpty)
        }
    }

    @Test func badTimesAreErrorsNamingTheFeatureAndThePositionWhenStrict() {
        #expect(readError(feature(line, properties: #"{"coordTimes":[1,2]}"#))
            == "t.geojson: feature 0: properties.coordTimes has 2 times for 3 positions")
        #expect(readError(feature(multi, properties: #"{"coordTimes":[[1,2],[3,"yesterday",5]]}"#))
            == "t.geojson: feature 0: properties.coordTimes[1][1]: 'yesterday' is not an ISO 8601 date-time "
                + "(2026-11-27T14:05:00Z) or Unix seconds")
        #expect(readError(feature(multi, properties: #"{"coordTimes":[[1,2],[3,4]]}"#))
            == "t.geojson: feature 0: properties.coordTimes[1] has 2 times for 3 positions")
        #expect(readError(feature(multi, properties: #"{"coordTimes":[[1,2]]}"#))
            == "t.geojson: feature 0: properties.coordTimes has 1 arrays for 2 parts")
        #expect(readError(feature(line, properties: #"{"coordTimes":[1,null,3]}"#))
            == "t.geojson: feature 0: properties.coordTimes[1] is null; a route has a time on every position or on none")
        #expect(readError(feature(line, properties: #"{"coordTimes":[1,3,2]}"#))
            == "t.geojson: feature 0: properties.coordTimes: position 2 time 1970-01-01T00:00:02Z is before the one "
                + "before it (1970-01-01T00:00:03Z)")
        #expect(readError(feature(line, properties: #"{"coordTimes":[1,2,3],"coordinateProperties":{"times":[1,2,4]}}"#))
            == "t.geojson: feature 0: properties.coordinateProperties.times and coordTimes differ at position 2 "
                + "(1970-01-01T00:00:04Z, 1970-01-01T00:00:03Z)")
        #expect(readError(feature(line, properties: #"{"coordTimes":"x"}"#))
            == "t.geojson: feature 0: properties.coordTimes must be an array of times, found a string")
    }

    /// By default the feature is read, its geometry whole, without times; the strict error is the warning.
    @Test func byDefaultBadTimesDropTheTimesNotTheFeature() throws {
        let cases = [
            (line, #"{"coordTimes":[1,2]}"#), (multi, #"{"coordTimes":[[1,2],[3,"yesterday",5]]}"#),
            (line, #"{"coordTimes":[1,null,3]}"#), (line, #"{"coordTimes":[1,3,2]}"#),
            (line, #"{"coordTimes":[1,2,3],"coordinateProperties":{"times":[1,2,4]}}"#),
            (line, #"{"coordTimes":["1901-12-13T20:45:52Z","1901-12-13T20:45:53Z","1901-12-13T20:45:54Z"]}"#),
        ]
        for (geometry, properties) in cases {
            let text = feature(geometry, properties: properties)
            let strictError = try #require(readError(text))
            let kept = try read(text)
            #expect(kept.routes.count == 1 && kept.routes[0].times == nil && kept.invalid.isEmpty, "\(properties)")
            #expect(kept.routes[0].pointCount == (geometry == line ? 3 : 5))
            #expect(kept.droppedTimes.map(\.description) == [strictError], "\(properties)")
        }
        let placeholder = try read(feature(line, properties: #"{"coordTimes":[0,0,0]}"#))
        #expect(placeholder.routes.first?.times == nil)
        #expect(placeholder.droppedTimes.map(\.description) == ["t.geojson: feature 0: properties.coordTimes: all 3 "
            + "positions have the same time 1970-01-01T00:00:00Z, a placeholder rather than when they were"])
    }

    @Test func zonelessTextNeedsTheTimeZoneOption() throws {
        let text = feature(line, properties: #"{"coordTimes":["2026-11-27 14:05:00","2026-11-27 14:05:01","2026-11-27 14:05:02"]}"#)
        #expect(readError(text) == "t.geojson: feature 0: properties.coordTimes[0]: '2026-11-27 14:05:00' has no zone; "
                + "pass --time-zone UTC")
        let route = try #require(try read(text, options: ReadOptions(timeZone: .utc)).routes.first)
        #expect(route.times == [t0, t0 + 1000, t0 + 2000])
    }

    @Test func ignoringTimesDropsThemAndStillTakesTheKeysOut() throws {
        let text = feature(line, properties: #"{"n":1,"coordTimes":["junk"],"coordinateProperties":{"times":[]}}"#)
        let route = try #require(try read(text, options: ReadOptions(times: .ignore)).routes.first)
        #expect(route.times == nil)
        #expect(route.properties == [Property("n", .int(1))])
    }

    @Test func randomTimedRoutesReadBackExactly() throws {
        var random = SeededGenerator(seed: 35)
        for _ in 0..<200 {
            let partCount = Int.random(in: 1...3, using: &random)
            var parts: [[(Double, Double)]] = []
            for _ in 0..<partCount {
                parts.append((0..<Int.random(in: 2...6, using: &random)).map { _ in
                    (Double.random(in: -180...180, using: &random), Double.random(in: -85...85, using: &random))
                })
            }
            var time = Int64.random(in: 0...4_000_000_000_000, using: &random)
            var times: [Int64] = []
            for _ in parts.joined() {
                times.append(time)
                time += Int64.random(in: 0...90_000, using: &random)
            }
            let coordinates = "[" + parts.map { "[" + $0.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }
                .joined(separator: ",") + "]"
            let asText = Bool.random(using: &random)
            let timeList = "[" + times.map { asText ? "\"\(TimeValue.iso($0))\"" : "\(Double($0) / 1000)" }
                .joined(separator: ",") + "]"
            let text = feature(#"{"type":"MultiLineString","coordinates":\#(coordinates)}"#,
                               properties: #"{"coordTimes":\#(timeList)}"#)
            let route = try #require(try read(text).routes.first)
            #expect(route.times == times)
            #expect(route.timeProblem() == nil)
        }
    }

    // MARK: Point streams as tracks

    func readStream(_ lines: [String], options: ReadOptions) throws -> ReadResult {
        try RouteReader.read(bytes: Array(lines.joined(separator: "\n").utf8), name: "t.ndjson", format: .geojsonseq,
                             options: options)
    }

    func point(_ lon: Double, _ lat: Double, _ properties: String) -> String {
        #"{"type":"Feature","properties":\#(properties),"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
    }

    @Test func timedPointsAreGroupedIntoTracksByTheirRoute() throws {
        let lines = [
            point(1, 1, #"{"object_id":"a","timestamp":"2026-11-27T14:05:00Z"}"#),
            point(5, 5, #"{"object_id":"b","timestamp":1795788300}"#),
            point(2, 2, #"{"object_id":"a","timestamp":"2026-11-27T14:05:01Z"}"#),
            point(6, 6, #"{"object_id":"b","timestamp":1795788310}"#),
            #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#,
        ]
        let options = ReadOptions(pointsAsTracks: true)
        let result = try readStream(lines, options: options)
        #expect(result.routes.count == 3)
        let a = try #require(result.routes.first(where: { $0.id == .string("a") }))
        #expect(a.parts == [coordinates([(1, 1), (2, 2)])])
        #expect(a.times == [t0, t0 + 1000])
        #expect(a.properties == [Property("object_id", .string("a"))])
        let b = try #require(result.routes.first(where: { $0.id == .string("b") }))
        #expect(b.times == [t0, t0 + 10_000])
        #expect(result.routes.allSatisfy { $0.timeProblem() == nil })
        // Without the option, points stay skipped as before.
        let plain = try readStream(lines, options: ReadOptions())
        #expect(plain.routes.count == 1)
        #expect(plain.skippedGeometries["Point"] == 4)
    }

    @Test func pointsGoingBackAreAnErrorUnlessOrderedByTime() throws {
        let lines = [
            point(1, 1, #"{"route":7,"t":1795788302}"#),
            point(2, 2, #"{"route":7,"t":1795788300}"#),
            point(3, 3, #"{"route":7,"t":1795788301}"#),
        ]
        #expect(inputError { _ = try readStream(lines, options: ReadOptions(times: .strict, pointsAsTracks: true)) }?.description
            == "t.ndjson:2: point time 2026-11-27T14:05:00Z is before the one before it (2026-11-27T14:05:02Z)")
        let kept = try readStream(lines, options: ReadOptions(pointsAsTracks: true))
        #expect(kept.routes.map(\.pointCount) == [3] && kept.routes[0].times == nil)
        #expect(kept.droppedTimes.map(\.description)
            == ["t.ndjson:2: point time 2026-11-27T14:05:00Z is before the one before it (2026-11-27T14:05:02Z)"])
        let sorted = try readStream(lines, options: ReadOptions(orderByTime: true, pointsAsTracks: true))
        let route = try #require(sorted.routes.first)
        #expect(route.id == .number(7))
        #expect(route.parts == [coordinates([(2, 2), (3, 3), (1, 1)])])
        #expect(route.times == [t0, t0 + 1000, t0 + 2000])
    }

    @Test func aTrackWithSomeUntimedPointsNamesBothLines() throws {
        let lines = [
            point(1, 1, #"{"route":"x","time":"2026-11-27T14:05:00Z"}"#),
            point(2, 2, #"{"route":"x"}"#),
        ]
        let strict = ReadOptions(times: .strict, pointsAsTracks: true)
        #expect(inputError { _ = try readStream(lines, options: strict) }?.description
            == "t.ndjson:2: point has no time, but the point at line 1 of this route has one")
        let bad = [point(1, 1, #"{"time":"soon"}"#), point(2, 2, #"{"time":"2026-11-27T14:05:00Z"}"#)]
        #expect(inputError { _ = try readStream(bad, options: strict) }?.description
            == "t.ndjson:1: properties.time: 'soon' is not an ISO 8601 date-time (2026-11-27T14:05:00Z) or Unix seconds")
        let skipped = try? readStream(bad, options: ReadOptions(skipInvalid: true, times: .strict, pointsAsTracks: true))
        #expect(skipped?.routes.isEmpty == true)
        #expect(skipped?.invalid.count == 1)
        // By default both tracks are read, without times, each with its warning.
        let kept = try readStream(lines, options: ReadOptions(pointsAsTracks: true))
        let keptBad = try readStream(bad, options: ReadOptions(pointsAsTracks: true))
        #expect(kept.routes.map(\.pointCount) == [2] && keptBad.routes.map(\.pointCount) == [2])
        #expect((kept.routes + keptBad.routes).allSatisfy { $0.times == nil })
        #expect(keptBad.droppedTimes.map(\.description)
            == ["t.ndjson:1: properties.time: 'soon' is not an ISO 8601 date-time (2026-11-27T14:05:00Z) or Unix seconds"])
    }
}

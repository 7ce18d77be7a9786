import Foundation
import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

/// GPX `<time>` in (track and route points, waypoints) and GPX out (`GPXWriter`).
@Suite struct GPXTimesTests {
    func read(_ text: String, options: ReadOptions = ReadOptions()) throws -> ReadResult {
        try GPXReader.read(Array(text.utf8), file: "t.gpx", options: options)
    }

    func readError(_ text: String, options: ReadOptions = ReadOptions(times: .strict)) -> String? {
        inputError { _ = try read(text, options: options) }?.description
    }

    let t0: Int64 = 1_795_788_300_000

    @Test func trackPointTimesBecomeTheRouteTimes() throws {
        let path = PackageFolder.root.appendingPathComponent("Tiles/samples/uetliberg-hikes.gpx").path
        let result = try RouteReader.read(path: path)
        let tracks = result.routes.filter { $0.layer == nil }
        #expect(tracks.map { $0.times?.count } == [240, 300, nil])
        let first = try #require(tracks.first?.times)
        #expect(first.first == (try TimeValue.parse("2026-06-01T07:00:00Z")))
        #expect(first.last == (try TimeValue.parse("2026-06-01T07:19:55Z")))
        #expect(tracks.allSatisfy { $0.timeProblem() == nil })
        // The streamed read gives the same times in small chunks.
        let streamed = try GPXReader.read(path: path, options: ReadOptions(), chunkSize: 97)
        #expect(streamed.routes.map(\.times) == result.routes.map(\.times))
    }

    @Test func routePointsZonelessTimesAndWaypoints() throws {
        let text = """
        <gpx version="1.1">
         <wpt lat="1" lon="2"><time>2026-11-27T15:05:00.5+01:00</time><name>w</name></wpt>
         <rte><rtept lat="1" lon="1"><time>2026-11-27T14:05:00</time></rtept><rtept lat="2" lon="2"><time>2026-11-27T14:05:00.250Z</time></rtept></rte>
        </gpx>
        """
        let result = try read(text)
        let waypoint = try #require(result.routes.first { $0.kind == .point })
        #expect(waypoint.properties == [Property("time", .string("2026-11-27T14:05:00.500Z")), Property("name", .string("w"))])
        #expect(waypoint.times == nil)
        let route = try #require(result.routes.first { $0.kind == .line })
        #expect(route.times == [t0, t0 + 250])
        let ignored = try read(text, options: ReadOptions(times: .ignore))
        #expect(ignored.routes.allSatisfy { $0.times == nil })
        #expect(ignored.routes.first { $0.kind == .point }?.properties == [Property("name", .string("w"))])
    }

    @Test func partialBackwardsAndUnreadableTimesAreErrorsAtThePointWhenStrict() throws {
        let partial = """
        <gpx><trk><trkseg>
        <trkpt lat="1" lon="1"><time>2026-11-27T14:05:00Z</time></trkpt>
          <trkpt lat="2" lon="2"/>
        </trkseg></trk></gpx>
        """
        #expect(readError(partial) == "t.gpx:3:3: trkpt has no time, but the trkpt at 2:1 of this route has one")
        let backwards = """
        <gpx><trk><trkseg>
        <trkpt lat="1" lon="1"><time>2026-11-27T14:05:10Z</time></trkpt>
        <trkpt lat="2" lon="2"><time>2026-11-27T14:05:03Z</time></trkpt>
        </trkseg></trk></gpx>
        """
        #expect(readError(backwards)
            == "t.gpx:3:1: trkpt time 2026-11-27T14:05:03Z is before the one before it (2026-11-27T14:05:10Z)")
        let unreadable = """
        <gpx><trk><trkseg>
        <trkpt lat="1" lon="1"><time>27/11/2026</time></trkpt><trkpt lat="2" lon="2"/>
        </trkseg></trk><trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="2"/></trkseg></trk></gpx>
        """
        #expect(readError(unreadable)
            == "t.gpx:2:24: time '27/11/2026' is not an ISO 8601 date-time (2026-11-27T14:05:00Z) or Unix seconds")
        let skipped = try read(unreadable, options: ReadOptions(skipInvalid: true, times: .strict))
        #expect(skipped.routes.count == 1 && skipped.invalid.count == 1)
        // By default the same problems drop the track's times, and say so at the same place.
        for text in [partial, backwards, unreadable] {
            let kept = try read(text)
            let strictError = try #require(readError(text))
            #expect(kept.routes.count == (text == unreadable ? 2 : 1) && kept.invalid.isEmpty)
            #expect(kept.routes.allSatisfy { $0.times == nil })
            #expect(kept.droppedTimes.map(\.description) == [strictError])
        }
    }

    /// A device without a clock (Mojstrovka.gpx, a real file): every point carries 1901-12-13T20:45:52Z, the smallest
    /// 32-bit Unix time, with seven digits of fraction. Its geometry is read, without times, and a bad waypoint time
    /// leaves the waypoint without its `time`.
    @Test func aDevicesPlaceholderTimeDropsTheTimesNotTheTrack() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="x">
        <wpt lat="46.44" lon="13.75"><time>1901-12-13T20:45:52Z</time><name>top</name></wpt>
        <trk><name>Mojstrovka</name><trkseg>
        \(ClocklessGPX.trackPoints())
        </trkseg></trk>
        <trk><name>clocked</name><trkseg>
        <trkpt lat="1" lon="1"><time>2026-11-27T14:05:00Z</time></trkpt><trkpt lat="2" lon="2"><time>2026-11-27T14:05:01Z</time></trkpt>
        </trkseg></trk></gpx>
        """
        let result = try read(text)
        let tracks = result.routes.filter { $0.kind == .line }
        #expect(tracks.map(\.pointCount) == [184, 2])
        #expect(tracks[0].times == nil && tracks[1].times == [t0, t0 + 1000])
        #expect(result.routes.first { $0.kind == .point }?.properties == [Property("name", .string("top"))])
        #expect(result.droppedTimes.map(\.description) == [
            "t.gpx:3:30: time '1901-12-13T20:45:52Z' is outside 1970-01-01 to 9999-12-31",
            "t.gpx:5:53: time '1901-12-13T20:45:52.2073437Z' is outside 1970-01-01 to 9999-12-31",
        ])
        // Strict stops at the first, as before.
        #expect(readError(text) == "t.gpx:3:30: time '1901-12-13T20:45:52Z' is outside 1970-01-01 to 9999-12-31")
        // A placeholder inside the range (1970-01-01 on every point) is no time either.
        let epoch = text.replacingOccurrences(of: "1901-12-13T20:45:52.2073437Z", with: "1970-01-01T00:00:00Z")
        let dropped = try read(epoch).droppedTimes.map(\.description)
        #expect(dropped.last == "t.gpx:5:3: all 184 trkpts have the same time 1970-01-01T00:00:00Z, a placeholder "
            + "rather than when they were")
        #expect(try read(epoch).routes.filter { $0.kind == .line }.map { $0.times == nil } == [true, false])
    }

    @Test func aDroppedSegmentTakesItsTimesWithIt() throws {
        let text = """
        <gpx><trk>
        <trkseg><trkpt lat="1" lon="1"><time>2026-11-27T14:05:00Z</time></trkpt><trkpt lat="2" lon="2"><time>2026-11-27T14:05:01Z</time></trkpt></trkseg>
        <trkseg><trkpt lat="3" lon="3"><time>2026-11-27T13:00:00Z</time></trkpt></trkseg>
        <trkseg><trkpt lat="4" lon="4"><time>2026-11-27T14:05:02Z</time></trkpt><trkpt lat="5" lon="5"><time>2026-11-27T14:05:03Z</time></trkpt></trkseg>
        </trk></gpx>
        """
        let route = try #require(try read(text).routes.first)
        #expect(route.parts.map(\.count) == [2, 2])
        #expect(route.times == [t0, t0 + 1000, t0 + 2000, t0 + 3000])
    }

    // MARK: Writing

    @Test func writesTracksAndWaypointsEscaped() {
        let route = Route(properties: [Property("name", .string("A & <B> \"c\""))],
                          parts: [[Coordinate(longitude: 8.5, latitude: 47.25), Coordinate(longitude: 1e-5, latitude: -0.0)]],
                          times: [t0, t0 + 250])
        let text = String(decoding: GPXWriter.gpx(route), as: UTF8.self)
        #expect(text.contains("<trk><name>A &amp; &lt;B&gt; &quot;c&quot;</name>"))
        #expect(text.contains(#"<trkpt lat="47.25" lon="8.5"><time>2026-11-27T14:05:00Z</time></trkpt>"#))
        #expect(text.contains(#"<trkpt lat="-0.0" lon="0.00001"><time>2026-11-27T14:05:00.250Z</time></trkpt>"#))
        let points = Route(parts: [[Coordinate(longitude: 1, latitude: 2)]], kind: .point)
        #expect(String(decoding: GPXWriter.gpx(points), as: UTF8.self).contains(#"<wpt lat="2.0" lon="1.0"></wpt>"#))
    }

    @Test func plainDecimalsReadBackAsTheSameDouble() {
        var random = SeededGenerator(seed: 4)
        for _ in 0..<20_000 {
            let magnitude = Double.random(in: -12...3, using: &random)
            let value = (Bool.random(using: &random) ? -1 : 1) * Double.random(in: 1...9.99, using: &random)
                * pow(10, magnitude.rounded(.down))
            var bytes: [UInt8] = []
            GPXWriter.appendDecimal(value, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("e"))
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(value) written \(text)")
        }
    }

    @Test func randomTimedRoutesRoundTripThroughGPX() throws {
        var random = SeededGenerator(seed: 1135)
        for n in 0..<300 {
            let parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                (0..<Int.random(in: 2...8, using: &random)).map { _ in
                    Coordinate(longitude: Double.random(in: -180...180, using: &random),
                               latitude: Double.random(in: -90...90, using: &random) * (n % 7 == 0 ? 1e-6 : 1))
                }
            }
            var time = Int64.random(in: 0...TimeValue.latest / 2, using: &random)
            let times: [Int64]? = n % 5 == 0 ? nil : parts.joined().map { _ in
                defer { time += Int64.random(in: 0...5_000, using: &random) }
                return time
            }
            let route = Route(properties: [Property("name", .string("r\(n) <&>"))], parts: parts, times: times)
            let back = try read(String(decoding: GPXWriter.gpx(route), as: UTF8.self))
            let read = try #require(back.routes.first)
            #expect(back.routes.count == 1)
            #expect(read.parts.map { $0.map(\.longitude.bitPattern) } == parts.map { $0.map(\.longitude.bitPattern) })
            #expect(read.parts.map { $0.map(\.latitude.bitPattern) } == parts.map { $0.map(\.latitude.bitPattern) })
            #expect(read.times == times)
            #expect(read.properties.first?.value == .string("r\(n) <&>"))
        }
    }
}

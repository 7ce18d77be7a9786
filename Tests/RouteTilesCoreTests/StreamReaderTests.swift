import Foundation
import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

private func sample(_ name: String) -> String {
    PackageFolder.root.appendingPathComponent("Tiles/samples/\(name)").path
}

@Suite struct StreamReaderTests {
    @Test func gpxTracksSegmentsAndRoutes() throws {
        let all = try RouteReader.read(path: sample("uetliberg-hikes.gpx"))
        var result = all
        result.routes = all.routes.filter { $0.layer == nil }
        #expect(result.routes.count == 3)
        #expect(result.routes.map(\.parts.count) == [1, 2, 1])
        #expect(result.routes.map { $0.parts.map(\.count) } == [[240], [150, 150], [40]])
        let first = result.routes[0].properties
        #expect(first.first { $0.key == "name" }?.value == .string("Uetliberg & back"))
        #expect(first.first { $0.key == "desc" }?.value == .string("Saturday hike"))
        #expect(first.first { $0.key == "type" }?.value == .string("hiking"))
        #expect(first.first { $0.key == "start_time" }?.value == .string("2026-06-01T07:00:00Z"))
        #expect(first.first { $0.key == "end_time" }?.value == .string("2026-06-01T07:19:55Z"))
        #expect(result.routes[1].properties.first { $0.key == "start_time" }?.value == .string("2026-06-01T07:30:00Z"))
        #expect(result.routes[1].properties.first { $0.key == "end_time" }?.value == .string("2026-06-01T08:02:25Z"))
        #expect(result.skippedGeometries.isEmpty)
        // The waypoint is a point in the layer `waypoints`.
        let waypoints = all.routes.filter { $0.layer == GPXReader.waypointsLayer }
        #expect(waypoints.count == 1 && waypoints.first?.kind == .point)
        #expect(waypoints.first?.parts == [[Coordinate(longitude: 8.4918, latitude: 47.3494)]])
        #expect(waypoints.first?.properties == [Property("name", .string("Uto Kulm"))])
    }

    /// Files from real devices: an empty "ACTIVE LOG" track and one-point segments beside real ones are skipped and
    /// counted, not errors; waypoints carry their name, description and symbol.
    @Test func gpxFromDevicesSkipsEmptyTracksAndReadsWaypoints() throws {
        let text = """
        <gpx version="1.1">
         <wpt lat="47.35" lon="8.49"><ele>870</ele><name>Summit</name><desc>view</desc><sym>Flag, Blue</sym></wpt>
         <wpt lat="47.36" lon="8.50"/>
         <trk><name>ACTIVE LOG</name><trkseg></trkseg></trk>
         <trk><name>walk</name><trkseg><trkpt lat="47.3" lon="8.5"/></trkseg>
           <trkseg><trkpt lat="47.3" lon="8.5"/><trkpt lat="47.31" lon="8.51"/></trkseg><trkseg><trkpt lat="47.4" lon="8.6"/></trkseg></trk>
         <trk><trkseg><trkpt lat="47.3" lon="8.5"/></trkseg></trk>
         <rte><rtept lat="47.1" lon="8.1"/></rte>
        </gpx>
        """
        let result = try GPXReader.read(Array(text.utf8), file: "d.gpx", options: ReadOptions())
        #expect(result.invalid.isEmpty)
        #expect(result.skippedGeometries == ["trk or rte with no segment of two points": 3, "trkseg of fewer than two points": 2])
        let lines = result.routes.filter { $0.kind == .line }
        #expect(lines.count == 1 && lines[0].parts == [[Coordinate(longitude: 8.5, latitude: 47.3), Coordinate(longitude: 8.51, latitude: 47.31)]])
        let points = result.routes.filter { $0.kind == .point }
        #expect(points.map(\.layer) == ["waypoints", "waypoints"])
        #expect(points[0].properties == [Property("name", .string("Summit")), Property("desc", .string("view")),
                                         Property("sym", .string("Flag, Blue"))])
        #expect(points[1].parts == [[Coordinate(longitude: 8.50, latitude: 47.36)]] && points[1].properties.isEmpty)
        // A waypoint out of range is an error with its line and column, or skipped with --skip-invalid.
        let bad = "<gpx>\n <wpt lat=\"95\" lon=\"8\"><name>x</name></wpt></gpx>"
        #expect(inputError { _ = try GPXReader.read(Array(bad.utf8), file: "d.gpx", options: ReadOptions()) }?.description
            == "d.gpx:2:2: <wpt>: latitude 95 is out of range [-90, 90]")
        let skipped = try GPXReader.read(Array(bad.utf8), file: "d.gpx", options: ReadOptions(skipInvalid: true))
        #expect(skipped.routes.isEmpty && skipped.invalid.count == 1)
    }

    @Test func gpxErrorsHaveLineAndColumn() {
        func error(_ text: String) -> String? {
            inputError { _ = try GPXReader.read(Array(text.utf8), file: "t.gpx", options: ReadOptions()) }?.description
        }
        #expect(error("<gpx>\n <trk><trkseg><trkpt lat=\"91\" lon=\"1\"/></trkseg></trk></gpx>")
            == "t.gpx:2:15: <trkpt>: latitude 91 is out of range [-90, 90]")
        #expect(error("<gpx>\n<trk>\n</trkseg></gpx>") == "t.gpx:3:1: end tag </trkseg> does not close <trk>")
        #expect(error("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"x\"/>")
            == "t.gpx:1:19: <trkpt> lon=\"x\" is not a number")
        #expect(error("<gpx>\n  <trk><name>a &bogus; b</name>") == "t.gpx:2:16: unknown entity '&bogus;'")
        #expect(error("<gpx><trk>") == "t.gpx:1:11: the file ends inside <trk>")
        #expect(error("<kml/>") == "t.gpx:1:1: expected a <gpx> root element, found <kml>")
        let invalidUTF8: [UInt8] = Array("<gpx><trk><name>".utf8) + [0xC3, 0x28] + Array("</name></trk></gpx>".utf8)
        #expect(inputError { _ = try GPXReader.read(invalidUTF8, file: "t.gpx", options: ReadOptions()) }?.description
            == "t.gpx:1:17: invalid UTF-8 (GPX must be UTF-8)")
    }

    /// With --skip-invalid a track with a bad point is skipped whole, named by line and column, and the other
    /// tracks are read; XML errors still stop the read.
    @Test func gpxSkipsABadTrackWhole() throws {
        let text = """
        <gpx>
         <trk><name>good</name><trkseg><trkpt lat="47.3" lon="8.5"/><trkpt lat="47.4" lon="8.6"/></trkseg></trk>
         <trk><name>bad</name><trkseg><trkpt lat="47.3" lon="8.5"/>
           <trkpt lat="98.01" lon="8.6"/><trkpt lat="47.5" lon="8.7"/></trkseg></trk>
         <rte><rtept lat="47.1" lon="8.1"/><rtept lat="47.2" lon="8.2"/></rte>
        </gpx>
        """
        #expect(inputError { _ = try GPXReader.read(Array(text.utf8), file: "t.gpx", options: ReadOptions()) }?.description
            == "t.gpx:4:4: <trkpt>: latitude 98.01 is out of range [-90, 90]")
        let result = try GPXReader.read(Array(text.utf8), file: "t.gpx", options: ReadOptions(skipInvalid: true))
        #expect(result.routes.count == 2)
        #expect(result.routes[0].properties.first { $0.key == "name" }?.value == .string("good"))
        #expect(result.invalid.map(\.description) == ["t.gpx:4:4: <trkpt>: latitude 98.01 is out of range [-90, 90]"])
        let broken = "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"></trk></gpx>"
        #expect(inputError { _ = try GPXReader.read(Array(broken.utf8), file: "t.gpx", options: ReadOptions(skipInvalid: true)) } != nil)
    }

    /// Routes skipped inside a record are placed on the record's line, like the errors of a whole record.
    @Test func skippedRecordsOfASequenceNameTheirLines() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("m.ndjson")
        let good = #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}"#
        let onePoint = #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0]]}}"#
        let outOfRange = #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,95]]}}"#
        try [good, good, onePoint, outOfRange, good].joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try RouteReader.read(path: path, options: ReadOptions(skipInvalid: true))
        #expect(result.routes.count == 3)
        #expect(result.invalid.count == 2)
        #expect(result.invalid.map { $0.description.hasPrefix("\(path):3") } == [true, false])
        #expect(result.invalid.map { $0.description.hasPrefix("\(path):4") } == [false, true], "\(result.invalid)")
    }

    /// GPX read in chunks as small as 16 bytes (every token cut by a chunk's end somewhere) gives the routes and
    /// the errors, with their lines and columns, of a read of the whole file.
    @Test func gpxStreamedInAnyChunkSizeEqualsReadWhole() throws {
        let folder = try TemporaryFolder()
        var segments = ""
        for segment in 0..<40 {
            segments += "<trkseg>\n"
            for k in 0..<7 {
                segments += "  <trkpt lat=\"47.\(segment)\(k)1\" lon='8.\(k)\(segment)2'><time>2026-11-27T14:\(segment < 10 ? "0" : "")\(segment):0\(k)Z</time></trkpt>\n"
            }
            segments += "</trkseg>"
        }
        var valid = "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<!DOCTYPE gpx [ <!ELEMENT gpx ANY> ]>\n"
        valid += "<gpx version=\"1.1\" xmlns:x=\"urn:x\">\n<!-- a comment with > and - inside -->\n"
        valid += "<trk><name>Caf\u{E9} &amp; &#x42;ar <![CDATA[<raw> & ]]></name><desc>d</desc><x:ext a='1'/>"
        valid += segments
        valid += "</trk>\n<rte><name>r</name><rtept lat=\"1\" lon=\"2\"/><rtept lat=\"1.5\" lon=\"2.5\"/></rte><wpt lat=\"0\" lon=\"0\"/>\n</gpx>\n"
        let invalid = [
            valid.replacingOccurrences(of: "lat=\"47.351\"", with: "lat=\"97.351\""),
            valid.replacingOccurrences(of: "</desc>", with: "</dsc>"),
            valid.replacingOccurrences(of: "&amp;", with: "&amb;"),
            String(valid.dropLast(12)),
            valid.replacingOccurrences(of: "<rtept lat=\"1.5\" lon=\"2.5\"/>", with: ""),
        ]
        for (n, text) in ([valid] + invalid).enumerated() {
            let path = folder.path("t\(n).gpx")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let whole: Result<ReadResult, InputError> = Result { try GPXReader.read(Array(text.utf8), file: path, options: ReadOptions()) }
                .mapError { $0 as? InputError ?? InputError(file: "?", message: "\($0)") }
            if n == 0 {
                let routes = try whole.get().routes
                #expect(routes.count == 3 && routes[0].parts.count == 40 && routes[0].parts.allSatisfy { $0.count == 7 })
                #expect(routes[0].properties.first { $0.key == "name" }?.value == .string("Caf\u{E9} & Bar <raw> &"))
                #expect(routes[2].layer == GPXReader.waypointsLayer)
                #expect(routes[0].times?.count == 280 && routes[0].timeProblem() == nil)
            } else if n == 5 {
                // A route left with one point is skipped and counted, as devices' empty tracks are.
                #expect(try whole.get().routes.count == 2)
                #expect(try whole.get().skippedGeometries == ["trk or rte with no segment of two points": 1])
            } else {
                #expect(throws: InputError.self, "case \(n)") { try whole.get() }
            }
            for chunk in [16, 17, 31, 64, 100, 4096] {
                let streamed: Result<ReadResult, InputError> = Result { try GPXReader.read(path: path, options: ReadOptions(), chunkSize: chunk) }
                    .mapError { $0 as? InputError ?? InputError(file: "?", message: "\($0)") }
                switch (whole, streamed) {
                case let (.success(a), .success(b)):
                    #expect(a.routes.map(\.parts) == b.routes.map(\.parts), "case \(n), chunk \(chunk)")
                    #expect(a.routes.map(\.properties) == b.routes.map(\.properties), "case \(n), chunk \(chunk)")
                    #expect(a.routes.map(\.times) == b.routes.map(\.times), "case \(n), chunk \(chunk)")
                    #expect(a.routes.map(\.origin) == b.routes.map(\.origin) && a.skippedGeometries == b.skippedGeometries)
                case let (.failure(a), .failure(b)):
                    #expect(a.description == b.description, "case \(n), chunk \(chunk)")
                default:
                    Issue.record("case \(n), chunk \(chunk): \(whole) against \(streamed)")
                }
            }
        }
        // RouteReader streams .gpx files.
        #expect(try RouteReader.read(path: folder.path("t0.gpx")).routes.count == 3)
    }

    @Test func ndjsonStreamedEqualsReadWhole() throws {
        let path = sample("delivery-vans.ndjson")
        let streamed = try RouteReader.read(path: path)
        let whole = try RouteReader.read(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))),
                                         name: path, format: .geojsonseq)
        #expect(streamed.routes.count == 8)
        #expect(streamed.routes.map(\.parts) == whole.routes.map(\.parts))
        #expect(streamed.routes.map(\.id) == (100..<108).map { RouteID.number(UInt64($0)) })
        #expect(streamed.routes[2].origin == "\(path) line 3")
    }

    @Test func sequenceRecordsSplitAcrossChunksAndErrorsNameTheLine() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("seq.geojsons")
        var text = ""
        for i in 0..<50 {
            text += "\u{1E}{\"type\":\"Feature\",\"properties\":{\"n\":\(i)},\"geometry\":{\"type\":\"LineString\","
                + "\"coordinates\":[[\(i),1],[\(i),2]]}}\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        // A tiny chunk size makes every record cross chunk boundaries.
        let input = try ChunkedInput(path: path, chunkSize: 16)
        var records = 0
        try input.forEachRecord { record, _ in
            if record.contains(where: { !InputFormat.isSpace($0) }) { records += 1 }
        }
        #expect(records == 50)
        #expect(try RouteReader.read(path: path).routes.count == 50)

        let bad = folder.path("bad.ndjson")
        try "{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}\n\n{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]}\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let error = inputError { _ = try RouteReader.read(path: bad) }
        #expect(error?.description.hasPrefix("\(bad):3:") == true)
        let skipped = try RouteReader.read(path: bad, options: ReadOptions(skipInvalid: true))
        #expect(skipped.routes.count == 1 && skipped.invalid.count == 1)
    }

    @Test func detection() {
        #expect(InputFormat.detect(path: "a", bytes: Array("{\"type\":\"Feature\"}\n{\"type\":\"Feature\"}\n".utf8)) == .geojsonseq)
        #expect(InputFormat.detect(path: "a", bytes: [0x1E] + Array("{}".utf8)) == .geojsonseq)
        #expect(InputFormat.detect(path: "a", bytes: Array("{\n \"type\": \"Feature\"\n}\n".utf8)) == .geojson)
        #expect(InputFormat.detect(path: "a", bytes: Array("<?xml version=\"1.0\"?><gpx/>".utf8)) == .gpx)
        #expect(InputFormat.detect(path: "a", bytes: Array("_p~iF~ps|U_ulLnnqC_mqNvxq`@\n".utf8)) == .polyline)
        #expect(InputFormat.detect(path: "a", bytes: Array("lat,lon\n1,2\n".utf8)) == .csv)
        #expect(InputFormat.detect(path: "a", bytes: Array("hello world\n".utf8)) == nil)
        #expect(InputFormat.detect(path: "a.ndjson", bytes: []) == .geojsonseq)
        #expect(InputFormat.detect(path: "a.polyline", bytes: []) == .polyline)
    }

    /// Every bundled sample reads and builds into tiles.
    @Test func everySampleBuilds() throws {
        // Route files only: not the generator script, nor the folder Python leaves beside it (__pycache__).
        let names = try FileManager.default.contentsOfDirectory(atPath: sample("")).filter { name in
            var isFolder: ObjCBool = false
            return !name.hasSuffix(".py") && FileManager.default.fileExists(atPath: sample(name), isDirectory: &isFolder)
                && !isFolder.boolValue
        }.sorted()
        #expect(names.count >= 10)
        for name in names {
            let result = try RouteReader.read(path: sample(name))
            #expect(!result.routes.isEmpty, "\(name)")
            var options = TilingOptions()
            options.maxZoom = 8
            let tiler = RouteTiler(routes: result.routes, options: options)
            let builder = PyramidBuilder(tiler: tiler, threads: 1)
            let sink = CountingSink()
            let statistics = try builder.build(into: sink)
            #expect(statistics.tilesPerZoom.values.reduce(0, +) > 0, "\(name)")
        }
    }
}

private final class CountingSink: TileSink, @unchecked Sendable {
    func put(_ tile: TileID, gzipData: [UInt8]) throws {}
}

@Suite struct LargeDirectionsDetectionTests {
    /// A directions file larger than the 64 KB the reader looks at first is still recognised by content.
    @Test func largeDirectionsFileIsDetected() throws {
        let folder = try TemporaryFolder()
        let steps = (0..<3000).map { _ in #"{"geometry":"_p~iF~ps|U_ulLnnqC","name":"x","distance":1,"duration":1,"maneuver":{"location":[-120.2,38.5],"type":"turn"}}"# }
        let text = #"{"code":"Ok","routes":[{"geometry":"_p~iF~ps|U_ulLnnqC","legs":[{"steps":["#
            + steps.joined(separator: ",") + "]}]}]}"
        let path = folder.path("big.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text.utf8.count > 65536)
        let result = try RouteReader.read(path: path)
        #expect(result.routes.filter { $0.layer == "maneuvers" }.count == 3000)
    }
}

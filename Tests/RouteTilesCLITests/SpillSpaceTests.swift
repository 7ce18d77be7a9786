import Foundation
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The build's bounded memory: columns in temporary files, trimmed past a budget, and GeoJSON read in batches.
@Suite(.heavy) struct SpillSpaceTests {
    static func routes(count: Int, points: Int, seed: UInt64 = 5) -> [Route] {
        var rng = SeededGenerator(seed: seed)
        var routes: [Route] = []
        for i in 0..<count {
            let lon = 8.5 + Double(i % 5) * 0.2, lat = 47.3 + Double(i / 5) * 0.2
            let track = Sample.track(count: points, lon: lon, lat: lat, step: 0.001, using: &rng)
            routes.append(Route(id: .number(UInt64(i)), properties: [Property("name", .string("r\(i)"))], parts: [track]))
        }
        return routes
    }

    @Test func largeColumnsLiveInTemporaryFilesAndSurviveTrims() throws {
        let folder = try TemporaryFolder()
        let space = try SpillSpace(directory: folder.path(""), budget: 1 << 20)
        let routes = Self.routes(count: 4, points: 60_000)
        let plain = ProjectedRouteSet(routes: routes)
        SpillSpace.$current.withValue(space) {
            var spilled = ProjectedRouteSet()
            for (i, route) in routes.enumerated() {
                spilled.add(route, index: i)
                space.trim()
            }
            // x, y and distance: 240,000 doubles each, past the 1 MB a column needs to spill.
            #expect(space.report.spilledBytes >= 3 * 240_000 * 8, "\(space.report)")
            space.trim()
            #expect(spilled.xs == plain.xs && spilled.ys == plain.ys && spilled.distances == plain.distances)
            #expect(spilled.lineStarts == plain.lineStarts && spilled.routeInfos.count == plain.routeInfos.count)
            #expect(spilled.geographicBounds.map { [$0.west, $0.south, $0.east, $0.north] }
                        == plain.geographicBounds.map { [$0.west, $0.south, $0.east, $0.north] })
        }
        // Nothing is left in the folder: the files are unlinked as soon as they are mapped.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("")).isEmpty)
        #expect(space.report.trims >= 5 && space.report.fallbacks == 0)
        // Every region was given back with its column.
        #expect(space.report.spilledBytes == 0, "\(space.report)")
    }

    /// The same tiles, byte for byte, whether the columns are in memory or in files trimmed every few milliseconds
    /// while four threads cut the pyramid.
    @Test func aPyramidFromSpilledColumnsIsByteIdentical() throws {
        let routes = Self.routes(count: 10, points: 20_000, seed: 11)
        var options = TilingOptions()
        options.maxZoom = 12
        let expected = CollectingSink()
        _ = try PyramidBuilder(tiler: RouteTiler(routes: routes, options: options), threads: 4).build(into: expected)

        let folder = try TemporaryFolder()
        let space = try SpillSpace(directory: folder.path(""), budget: 1 << 20)
        space.startWatching(interval: 0.002)
        defer { space.stopWatching() }
        let actual = CollectingSink()
        try SpillSpace.$current.withValue(space) {
            var projected = ProjectedRouteSet()
            for (i, route) in routes.enumerated() { projected.add(route, index: i) }
            let tiler = RouteTiler(projected: projected, options: options)
            _ = try PyramidBuilder(tiler: tiler, threads: 4).build(into: actual)
        }
        #expect(space.report.spilledBytes > 0 || space.report.trims > 0)
        #expect(space.report.trims > 0, "the budget of 1 MB is always exceeded: \(space.report)")
        let a = expected.all, b = actual.all
        #expect(a.count == b.count && a.count > 100, "\(a.count) and \(b.count) tiles")
        #expect(a.keys.allSatisfy { a[$0] == b[$0] }, "every tile the same")
    }

    /// `routetiles build --memory-mb 32` (columns in files, trimmed all along, the GeoJSON read in batches) writes
    /// the tiles a build in memory writes.
    @Test func theBuildCommandWithASmallBudgetWritesTheSameTiles() async throws {
        let folder = try TemporaryFolder()
        let routes = Self.routes(count: 30, points: 12_000, seed: 3)
        let features = routes.map { route in
            let coordinates = route.parts[0].map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
            return #"{"type":"Feature","properties":{"name":"\#(route.origin)"},"geometry":{"type":"LineString","coordinates":[\#(coordinates)]}}"#
        }
        try #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
            .write(toFile: folder.path("big.geojson"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder.path("tmp"), withIntermediateDirectories: true)
        let run = try await ExternalTool.runDetached(ExternalTool.routetiles, [
            "build", folder.path("big.geojson"), "-o", folder.path("cli"), "--maxzoom", "12", "--memory-mb", "32",
            "--temp-dir", folder.path("tmp"), "-q",
        ], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")

        var options = TilingOptions()
        options.maxZoom = 12
        let read = try RouteReader.read(path: folder.path("big.geojson"))
        let sink = CollectingSink()
        _ = try PyramidBuilder(tiler: RouteTiler(routes: read.routes, options: options), threads: 2).build(into: sink)
        let expected = sink.all
        var found = 0
        for (tile, bytes) in expected {
            let path = folder.path("cli/\(tile.z)/\(tile.x)/\(tile.y).mvt")
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            found += 1
            #expect(Array(data) == bytes, "\(tile)")
        }
        #expect(found == expected.count && found > 100, "\(found) of \(expected.count) tiles")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("tmp")).isEmpty, "no temporary file is left")
        let bad = try await ExternalTool.runDetached(ExternalTool.routetiles, [
            "build", folder.path("big.geojson"), "-o", folder.path("x"), "--temp-dir", folder.path("missing"),
        ])
        #expect(bad.status != 0 && bad.stderr.contains("temporary folder"), "\(bad.stderr)")
    }

    @Test func aMissingOrReadOnlyFolderIsAnError() throws {
        #expect(throws: SpillError.self) { try SpillSpace(directory: "/nonexistent/folder", budget: 1 << 20) }
        #expect(SpillSpace.residentBytes().map { $0.resident > 0 && $0.mapped >= 0 } == true)
    }

    /// A FeatureCollection read in batches gives the routes `read` gives, in order, in batches of about the size
    /// asked; a collection whose `type` comes last arrives in one batch; a syntax error near the end still throws,
    /// with its line, after the batches before it.
    @Test func geoJSONInBatchesIsTheSameAsWhole() throws {
        var features: [String] = []
        for i in 0..<50 {
            let coordinates = (0..<(10 + i)).map { "[\(8.5 + Double($0) * 0.001),\(47 + Double(i) * 0.001)]" }.joined(separator: ",")
            features.append(#"{"type":"Feature","id":\#(i),"properties":{"n":\#(i)},"geometry":{"type":"LineString","coordinates":[\#(coordinates)]}}"#)
            if i % 10 == 0 { features.append(#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}"#) }
        }
        let document = #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ",\n"))]}"#
        let whole = try GeoJSONReader.read(Array(document.utf8), file: "f.geojson", options: ReadOptions())
        var batches: [ReadResult] = []
        try Array(document.utf8).withUnsafeBufferPointer { buffer in
            try GeoJSONReader.forEachBatch(buffer, file: "f.geojson", options: ReadOptions(), batchPoints: 200) { batches.append($0) }
        }
        #expect(batches.count > 5)
        #expect(batches.dropLast().allSatisfy { batch in batch.routes.reduce(0) { $0 + $1.pointCount } >= 200 })
        let joined = batches.flatMap(\.routes)
        #expect(joined.map(\.id) == whole.routes.map(\.id) && joined.map(\.parts) == whole.routes.map(\.parts))
        #expect(batches.reduce(0) { $0 + ($1.skippedGeometries["Point"] ?? 0) } == 5)

        let typeLast = #"{"features":[\#(features.joined(separator: ","))],"type":"FeatureCollection"}"#
        var count = 0
        try Array(typeLast.utf8).withUnsafeBufferPointer { buffer in
            try GeoJSONReader.forEachBatch(buffer, file: "f.geojson", options: ReadOptions(), batchPoints: 200) {
                count += 1
                #expect($0.routes.count == 50)
            }
        }
        #expect(count == 1)

        let broken = String(document.dropLast(2)) + "}"
        var handed = 0
        let error = #expect(throws: InputError.self) {
            try Array(broken.utf8).withUnsafeBufferPointer { buffer in
                try GeoJSONReader.forEachBatch(buffer, file: "f.geojson", options: ReadOptions(), batchPoints: 200) { handed += $0.routes.count }
            }
        }
        #expect(handed > 0 && handed < 50)
        #expect(error?.description.hasPrefix("f.geojson:") == true, "\(String(describing: error))")
    }
}

import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The code of the documentation catalog's getting-started article (Sources/RouteTiles/RouteTiles.docc/
/// GettingStarted.md), step by step, against the bundled sample: the article's code compiles against the public
/// API (a plain `import`, not `@testable`) and does what the article says.
@Suite struct GettingStartedTests {
    @Test func theArticlesStepsWork() async throws {
        let folder = try TemporaryFolder()
        let samples = PackageFolder.root.appendingPathComponent("Tiles/samples").path

        // Read routes.
        let read = try RouteReader.read(path: samples + "/paris-runs.geojson")
        #expect(read.routes.count > 1 && read.routes.reduce(0) { $0 + $1.pointCount } > 1000)

        // Cut a tile.
        var options = TilingOptions()
        options.maxZoom = 14
        let tiler = RouteTiler(routes: read.routes, options: options)
        let mvt = try #require(try tiler.tile(z: 12, x: 2074, y: 1409), "the article's tile holds Paris")
        let gzipped = try GzipCompressor().compress(mvt)
        #expect(try Gzip.decompress(gzipped) == mvt)
        #expect(try VectorTileDecoder.decode(mvt).layers.map(\.name) == ["routes"])

        // Write a pyramid.
        let path = folder.path("paris.pmtiles")
        let store = try TileStoreFormat.pmtiles.makeStore(path: path, replace: true)
        let statistics: BuildStatistics
        do {
            statistics = try PyramidBuilder(tiler: tiler).build(into: store)
            try store.putMetadata(TilesetMetadata(name: "paris", tiler: tiler))
            try store.commit()
        } catch {
            store.abort()
            throw error
        }
        #expect(statistics.tiles > 20 && statistics.tilesPerZoom.keys.sorted() == Array(0...14))

        // Serve tiles: the decisions of a server, without HTTP.
        struct NoMetrics: TileServiceObserver {}
        let service = TileService<[UInt8]>(backend: .routes(read.routes, options: options), cacheBytes: 64 << 20,
                                           concurrency: 2, queueLimit: 16, observer: NoMetrics())
        let responder = TileResponder(service: service, cacheControl: "public, max-age=60")
        let answer = await responder.answer(path: "12/2074/1409.mvt", isHead: false, acceptsGzip: true,
                                            ifNoneMatch: nil)
        #expect(answer.status == .ok && answer.contentEncoding == "gzip" && answer.cacheControl == "public, max-age=60")
        guard case let .gzip(body) = answer.body else { Issue.record("no gzip body: \(answer.body)"); return }
        #expect(try Gzip.decompress(body) == mvt)
        let again = await responder.answer(path: "12/2074/1409.mvt", isHead: false, acceptsGzip: true,
                                           ifNoneMatch: answer.etag)
        #expect(again.status == .notModified && again.etag == answer.etag)
        if case .none = again.body {} else { Issue.record("a 304 with a body") }

        // Serve tiles: read back what was written.
        let source = try TileStoreFormat.openSource(path: path)
        let stored = try #require(try source.gzipTile(TileID(z: 12, x: 2074, y: 1409)))
        #expect(try Gzip.decompress(stored) == mvt)
        #expect(source.metadata.name == "paris")

        // Follow routes that change.
        let live = LiveRouteSync.inMemory(routes: read.routes, options: options)
        let outcome = try await live.write(.append(key: "1", points: [Coordinate(longitude: 2.35, latitude: 48.86)]))
        guard case let .applied(change, _, _) = outcome else {
            Issue.record("the append was not applied: \(outcome)")
            return
        }
        #expect(change.keys == ["1"] && !change.invalidated.isEmpty && change.generation == 1)
        let fresh = try #require(try live.routes.snapshot.tile(z: 12, x: 2074, y: 1409))
        #expect(fresh != mvt, "the appended route's length changed in the tile")
    }
}

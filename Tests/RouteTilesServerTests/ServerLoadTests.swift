import Foundation
import Synchronization
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// A built pyramid served from disk, and the server's behaviour under load.
@Suite struct ServerLoadTests {
    /// A pyramid source that can hold every read until released, to fill the generation slots on purpose.
    final class GatedSource: TileSource, @unchecked Sendable {
        // Unchecked: `open` is guarded by the condition's lock.
        let inner: DirectoryTileSource
        let condition = NSCondition()
        var open = false
        let reads = Mutex(0)

        init(_ inner: DirectoryTileSource) { self.inner = inner }
        var metadata: TilesetMetadata { inner.metadata }
        func tileIDs() throws -> [TileID] { try inner.tileIDs() }
        func gzipTile(_ tile: TileID) throws -> [UInt8]? {
            reads.withLock { $0 += 1 }
            condition.lock()
            let deadline = Date().addingTimeInterval(20)
            while !open && condition.wait(until: deadline) {}
            condition.unlock()
            return try inner.gzipTile(tile)
        }
        func release() {
            condition.lock()
            open = true
            condition.broadcast()
            condition.unlock()
        }
    }

    func buildPyramid(in folder: TemporaryFolder, named name: String = "pyramid") async throws -> String {
        let out = folder.path(name)
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", PackageFolder.root.path + "/Tiles/samples/paris-runs.geojson",
                                                              "-o", out, "--maxzoom", "12", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// A folder, an MBTiles and a PMTiles archive, each served with the same HTTP behaviour.
    @Test(arguments: ["pyramid", "routes.mbtiles", "routes.pmtiles"])
    func aBuiltTilesetIsServedByteForByte(name: String) async throws {
        let folder = try TemporaryFolder()
        let out = try await buildPyramid(in: folder, named: name)
        let source = try TileStoreFormat.openSource(path: out)
        let ids = try source.tileIDs().sorted()
        #expect(ids.count >= 10)
        try await TestServer.with(.tileset(source)) { server in
            for id in ids {
                let reply = try await server.get("/tiles/\(id.z)/\(id.x)/\(id.y).mvt")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Encoding") == "gzip")
                #expect(reply.body == (try source.gzipTile(id)))
                let etag = try #require(reply.header("ETag"))
                #expect(try await server.get("/tiles/\(id.z)/\(id.x)/\(id.y).mvt", headers: [("If-None-Match", etag)]).status == 304)
            }
            // Without gzip in Accept-Encoding the tile comes inflated.
            let plain = try await server.get("/tiles/\(ids[0].z)/\(ids[0].x)/\(ids[0].y).mvt", gzip: false)
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.body == (try Gzip.decompress(try #require(try source.gzipTile(ids[0])))))
            let layers = (try await server.get("/tiles.json").json["vector_layers"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(layers == ["routes", "density"])
            let tileJSON = try await server.get("/tiles.json").json
            #expect(tileJSON["maxzoom"] as? Int == 12)
            #expect(try await server.get("/tiles/13/0/0.mvt").status == 404)
            #expect(try await server.get("/tiles/12/0/0.mvt").status == 204)
            // A finished tileset takes no writes.
            #expect(try await server.request(.POST, "/routes", body: Array("{}".utf8)).status == 405)
        }
    }

    @Test func pastTheQueueTheServerAnswers503WithRetryAfter() async throws {
        let folder = try TemporaryFolder()
        let source = GatedSource(try DirectoryTileSource(root: URL(fileURLWithPath: try await buildPyramid(in: folder))))
        let ids = try source.tileIDs().sorted()
        try await TestServer.with(.tileset(source), configure: {
            $0.generationConcurrency = 1
            $0.generationQueueLimit = 1
        }) { server in
            // Two cold tiles fill the one slot and the one queue place; a third is refused at once.
            async let first = server.get("/tiles/\(ids[0].z)/\(ids[0].x)/\(ids[0].y).mvt")
            async let second = server.get("/tiles/\(ids[1].z)/\(ids[1].x)/\(ids[1].y).mvt")
            let deadline = Date().addingTimeInterval(10)
            while server.server.state.tiles.limiter.load != (1, 1) && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let refused = try await server.get("/tiles/\(ids[2].z)/\(ids[2].x)/\(ids[2].y).mvt")
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            source.release()
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(try await server.get("/tiles/\(ids[2].z)/\(ids[2].x)/\(ids[2].y).mvt").status == 200)
            #expect(try await server.get("/metrics").text.contains("routetiles_overloaded_total 1"))
        }
    }

    @Test(arguments: [1, 3])
    func theLimiterNeverRunsMoreThanItsConcurrency(concurrency: Int) async throws {
        let limiter = GenerationLimiter(concurrency: concurrency, queueLimit: 1000)
        final class Running: Sendable {
            let counts = Mutex((now: 0, most: 0))
        }
        let running = Running()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await limiter.run {
                        running.counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        usleep(200)
                        running.counts.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let most = running.counts.withLock { $0.most }
        #expect(most >= 1 && most <= concurrency)
        #expect(limiter.load == (0, 0))
    }
}

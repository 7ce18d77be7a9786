import AsyncHTTPClient
import Foundation
import NIOCore
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Route stores through the `routetiles` binary, as jobs and servers use them: `load`, `serve --store` importing
/// files once, `build`, `seed` and `check` reading a store where they read a file, and the refusal of a write
/// token with nothing to keep the writes.
@Suite(.serialized, .heavy) struct StoreCLITests {
    static let samples = ["paris-runs.geojson", "zurich-walks.polyline"]
        .map { PackageFolder.root.appendingPathComponent("Tiles/samples/" + $0).path }

    func routetiles(_ arguments: [String]) async throws -> ExternalTool.Result {
        try await ExternalTool.runDetached(ExternalTool.routetiles, arguments, timeout: 180)
    }

    /// The tiles of a built folder, by path.
    func tiles(under folder: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".mvt") else { continue }
            result[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative)))
        }
        return result
    }

    /// What differs between two gzip tiles' contents, reading each feature's properties as a set: PostgreSQL keeps
    /// properties as jsonb, which holds an object's keys in an order of its own, so a tile cut from it may list
    /// them in another order than one cut from the file (Docs/FORMATS.md).
    func contentDifference(_ a: [UInt8]?, _ b: [UInt8]?) throws -> String? {
        guard let a, let b else { return a == nil && b == nil ? nil : "a tile on one side only" }
        let (x, y) = (try Sample.decode(a), try Sample.decode(b))
        guard x.layers.map(\.name) == y.layers.map(\.name) else { return "layers differ" }
        for (l, m) in zip(x.layers, y.layers) {
            guard l.features.count == m.features.count else { return "\(l.name): feature counts differ" }
            for (f, g) in zip(l.features, m.features) {
                if f.id != g.id || f.rawType != g.rawType || f.geometry.points != g.geometry.points || f.geometry.partEnds != g.geometry.partEnds { return "\(l.name): feature \(String(describing: f.id)) differs" }
                if Set(f.properties) != Set(g.properties) { return "\(l.name): properties \(f.properties) != \(g.properties)" }
            }
        }
        return nil
    }

    /// `load` twice writes once; `build`, `seed` and `check` read the store and give what they give for the files
    /// (byte for byte with SQLite; with PostgreSQL, the same content).
    func loadThenReadBack(store: String, folder: TemporaryFolder, sameBytes: Bool) async throws {
        let first = try await routetiles(["load"] + Self.samples + ["--store", store])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.text.contains("added, 0 replaced, 0 unchanged"), "\(first.text)")
        let again = try await routetiles(["load"] + Self.samples + ["--store", store])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.text.contains(" 0 added, 0 replaced, "), "\(again.text)")

        let options = ["--minzoom", "5", "--maxzoom", "13", "--quiet"]
        let fromFiles = try await routetiles(["build"] + Self.samples + ["-o", folder.path("files")] + options)
        let fromStore = try await routetiles(["build", store, "-o", folder.path("store")] + options)
        #expect(fromFiles.status == 0 && fromStore.status == 0, "\(fromFiles.stderr) \(fromStore.stderr)")
        let expected = try tiles(under: folder.path("files"))
        #expect(expected.count > 100)
        let built = try tiles(under: folder.path("store"))
        #expect(built.keys.sorted() == expected.keys.sorted())
        if sameBytes {
            #expect(built == expected)
        } else {
            let differences = try expected.keys.sorted().compactMap { path in try contentDifference(expected[path], built[path]).map { "\(path): \($0)" } }
            #expect(differences.isEmpty, "\(differences.prefix(3))")
        }

        let seedOptions = ["--minzoom", "8", "--maxzoom", "11", "--concurrency", "2"]
        let seededFiles = try await routetiles(["seed"] + Self.samples + ["-o", folder.path("files.mbtiles")] + seedOptions)
        let seededStore = try await routetiles(["seed", store, "-o", folder.path("store.mbtiles")] + seedOptions)
        #expect(seededFiles.status == 0 && seededStore.status == 0, "\(seededFiles.stderr) \(seededStore.stderr)")
        let a = try TileStoreFormat.openSource(path: folder.path("files.mbtiles"))
        let b = try TileStoreFormat.openSource(path: folder.path("store.mbtiles"))
        let ids = try a.tileIDs().sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
        let idsFromStore = try b.tileIDs().sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
        #expect(ids.count > 20 && ids == idsFromStore)
        for id in ids {
            let (x, y) = (try a.gzipTile(id), try b.gzipTile(id))
            if sameBytes { #expect(x == y) } else { #expect(try contentDifference(x, y) == nil) }
        }

        let checked = try await routetiles(["check", store])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.text.contains("points"), "\(checked.text)")
    }

    @Test func sqliteStoreLoadsOnceAndFeedsBuildSeedAndCheck() async throws {
        let folder = try TemporaryFolder()
        try await loadThenReadBack(store: folder.path("routes.db"), folder: folder, sameBytes: true)
        // A file that is not a route store is refused by name, never written into.
        let notAStore = try await routetiles(["load"] + Self.samples + ["--store", folder.path("files.mbtiles")])
        #expect(notAStore.status != 0)
        #expect(notAStore.stderr.contains("not a RouteTiles route store"), "\(notAStore.stderr)")
    }

    @Test(.enabled(if: ExternalTool.required(PostgresCluster.installed)))
    func postgresStoreLoadsOnceAndFeedsBuildSeedAndCheck() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        try await loadThenReadBack(store: url, folder: try TemporaryFolder(), sameBytes: false)
    }

    /// `serve FILES --store X` imports the files into the store; started again with the same command, it creates
    /// nothing twice, and the routes written over HTTP in between are still there.
    @Test func serveImportsItsFilesOnceAndKeepsWrites() async throws {
        let folder = try TemporaryFolder()
        let arguments = Self.samples + ["--store", folder.path("routes.db"), "--write-token", "import-token"]
        var serve = try await ServeProcess.start(arguments)
        let health = try await StoreCrashTests.getJSON(serve.base + "/health")
        let routes = try #require(health["routes"] as? Int)
        let sequence = try #require((health["store"] as? [String: Any])?["applied_sequence"] as? Int)
        #expect(routes > 3 && sequence == routes)
        let feature = #"{"type":"Feature","id":"extra","properties":{},"geometry":{"type":"LineString","coordinates":[[2.3,48.8],[2.4,48.9]]}}"#
        var request = HTTPRouteWriterRequest(base: serve.base, token: "import-token")
        #expect(try await request.post("/routes", feature) == 201)
        #expect(await serve.stop() == 0)

        serve = try await ServeProcess.start(arguments)
        let again = try await StoreCrashTests.getJSON(serve.base + "/health")
        #expect(again["routes"] as? Int == routes + 1)
        #expect((again["store"] as? [String: Any])?["applied_sequence"] as? Int == sequence + 1)
        #expect(try await StoreCrashTests.get(serve.base + "/routes/extra").0 == 200)
        #expect(await serve.stop() == 0)
    }

    /// A write token with nothing durable behind it would acknowledge writes and forget them: refused at start.
    @Test func aWriteTokenWithoutAStoreIsRefused() async throws {
        let refused = try await routetiles(["serve", "--write-token", "some-token-1", "--port", "0"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--write-token needs --store"), "\(refused.stderr)")
    }
}

/// Writes for the CLI tests, with a bearer token.
struct HTTPRouteWriterRequest {
    let base: String
    let token: String

    mutating func post(_ path: String, _ body: String) async throws -> Int {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/geo+json")
        request.body = .bytes(ByteBuffer(bytes: Array(body.utf8)))
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}

import Foundation
import RouteTiles
@testable import RouteTilesPostgres
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `kill -9` of `routetiles serve --store` in the middle of a stream of writes, with SQLite and with PostgreSQL:
/// after a restart with the same command, every write that was answered 2xx is there, and the restarted server's
/// tiles equal those of a server started from the final routes in a file.
@Suite(.serialized, .heavy) struct StoreCrashTests {
    static let token = "crash-test-token"
    /// Zooms 9 to 14; no position layer, which only a server of a store writes (the tiles are compared with a
    /// server of files; LivePositionTests and ServerPositionTests check the layer).
    static let tiling = ["--minzoom", "9", "--maxzoom", "14", "--position-layer", "none"]
    static var options: TilingOptions { Sample.options(minZoom: 9, maxZoom: 14) }

    @Test func sqliteKeepsEveryAcknowledgedWriteThroughKill9() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        try await crashAndRestart(store: path, folder: folder, seed: 70) { try await StoreSnapshot.sqlite(path) }
    }

    @Test(.enabled(if: ExternalTool.required(PostgresCluster.installed)))
    func postgresKeepsEveryAcknowledgedWriteThroughKill9() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        let folder = try TemporaryFolder()
        try await crashAndRestart(store: url, folder: folder, seed: 80) { try await StoreSnapshot.postgres(url) }
    }

    /// Three writers stream writes to the server; once 45 are acknowledged it is killed with SIGKILL while writes
    /// are in flight, and started again with the same command.
    func crashAndRestart(store: String, folder: TemporaryFolder, seed: UInt64,
                         load: () async throws -> RouteStoreSnapshot) async throws {
        let arguments = ["--store", store, "--write-token", Self.token] + Self.tiling
        let first = try await ServeProcess.start(arguments)
        let base = first.base
        let writers = (0..<3).map { HTTPRouteWriter(prefix: "w\($0)", token: Self.token, seed: seed + UInt64($0)) }
        let killed = StopFlag()
        let pid = first.process.processIdentifier
        await withTaskGroup(of: Void.self) { group in
            for writer in writers {
                group.addTask { await writer.run(base: { base }, limit: 400, stop: { killed.isRaised }) }
            }
            group.addTask {
                let deadline = Date().addingTimeInterval(90)
                while writers.reduce(0, { $0 + $1.acknowledged }) < 45, Date() < deadline {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                kill(pid, SIGKILL)
                killed.raise()
            }
        }
        first.process.waitUntilExit()
        #expect(first.process.terminationReason == .uncaughtSignal)
        let acknowledged = writers.reduce(0) { $0 + $1.acknowledged }
        #expect(acknowledged >= 45)
        for writer in writers { #expect(writer.unexpected.isEmpty, "\(writer.unexpected.prefix(3))") }

        // Started again: the store holds every acknowledged write, and the server serves it.
        let restarted = try await ServeProcess.start(arguments)
        let snapshot = try await load()
        for writer in writers {
            let problems = writer.problems(in: snapshot.routes)
            #expect(problems.isEmpty, "\(writer.prefix): \(problems.prefix(5))")
            #expect(writer.uncertainRequests <= 1, "one request at a time: at most one was in flight when the server died")
        }
        let health = try await Self.getJSON(restarted.base + "/health")
        #expect(health["routes"] as? Int == snapshot.routes.count)

        // A server started from the final routes, written to a file in their order, serves the same tiles.
        let (compared, differing) = try await Self.compareTiles(restarted.base, withFileOf: snapshot.routes.map(\.route),
                                                                covering: writers.flatMap(\.sent), folder: folder)
        #expect(differing.isEmpty, "\(differing.count) of \(compared) tiles differ, such as \(differing.prefix(3))")
        #expect(compared > 30)
        #expect(await restarted.stop() == 0)
    }

    /// Compares the tiles of the server at `base` with those of a server started from `routes` written to a file in
    /// their order, over the covers of `routes` and `more`: how many were compared, and those that differ. Both
    /// servers tile with `tiling` (zooms 9 to 14).
    static func compareTiles(_ base: String, withFileOf routes: [Route], covering more: [Route],
                             folder: TemporaryFolder) async throws -> (compared: Int, differing: [TileID]) {
        let file = folder.path("final-\(UUID().uuidString).geojson")
        try Data(HTTPRouteWriter.featureCollection(routes)).write(to: URL(fileURLWithPath: file))
        // Tiles of routes in a store carry no length_m (`--no-route-length`, the default of serve --store).
        let fromFile = try await ServeProcess.start([file, "--no-route-length"] + tiling)
        defer { _ = fromFile.stopNow() }
        var tiles = Set<TileID>()
        for route in more + routes { tiles.formUnion(RouteCover.tiles(of: route, options: options)) }
        var compared = 0, differing: [TileID] = []
        for tile in tiles.sorted(by: { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }) {
            let path = "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt"
            let a = try await get(base + path)
            let b = try await get(fromFile.base + path)
            if a.0 != b.0 || a.1 != b.1 { differing.append(tile) }
            compared += 1
        }
        return (compared, differing)
    }

    static func get(_ url: String) async throws -> (Int, [UInt8]) {
        let response = try await TestServer.client.execute(.init(url: url), timeout: .seconds(60))
        return (Int(response.status.code), Array(try await response.body.collect(upTo: 16 << 20).readableBytesView))
    }

    static func getJSON(_ url: String) async throws -> [String: Any] {
        let (_, body) = try await get(url)
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
    }
}

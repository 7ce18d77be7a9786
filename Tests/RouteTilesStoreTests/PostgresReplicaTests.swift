import Foundation
import RouteTiles
@testable import RouteTilesPostgres
@testable import RouteTilesServer
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Replicas as users run them: two real servers over one PostgreSQL database, written to over HTTP by clients
/// and with `psql`, then checked tile by tile. One test restarts PostgreSQL while the writes go on.
@Suite(.enabled(if: ExternalTool.required(PostgresCluster.installed)), .serialized, .heavy)
struct PostgresReplicaTests {
    static let token = "replica-token-1"
    static let options = Sample.options(minZoom: 9, maxZoom: 14)

    /// Two servers, each with its own connection pool to `url`, run for the length of `body`.
    static func withReplicas<T: Sendable>(
        url: String, timeout: Duration = .seconds(60),
        _ body: @escaping @Sendable (TestServer.Handle, TestServer.Handle, LiveRouteSync, LiveRouteSync) async throws -> T
    ) async throws -> T {
        let storeA = try await PostgresRouteStore.open(url: url, create: true, timeout: timeout)
        let storeB = try await PostgresRouteStore.open(url: url, create: true, timeout: timeout)
        let (syncA, _) = try await LiveRouteSync.open(store: storeA, options: options)
        let (syncB, _) = try await LiveRouteSync.open(store: storeB, options: options)
        let configure: @Sendable (inout ServerConfiguration) -> Void = { $0.writeToken = token }
        let result = try await TestServer.with(.live(syncA), configure: configure) { a in
            try await TestServer.with(.live(syncB), configure: configure) { b in
                try await body(a, b, syncA, syncB)
            }
        }
        await storeA.close()
        await storeB.close()
        return result
    }

    /// Waits (at most `seconds`) until both servers' `/health` report the store's newest sequence as applied.
    static func settle(_ servers: [TestServer.Handle], newest: () async throws -> Int64, seconds: Double = 30) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let target = try await newest()
            var done = true
            for server in servers {
                let store = try await server.get("/health").json["store"] as? [String: Any]
                if ((store?["applied_sequence"] as? NSNumber)?.int64Value ?? -1) < target { done = false }
            }
            if done { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Both servers answer every tile of `routes`' covers with the same bytes, and those of one tiler over the
    /// store's routes; the number of tiles compared.
    static func compareTiles(_ a: TestServer.Handle, _ b: TestServer.Handle, routes: [Route], truth: RouteTiler,
                             syncs: [LiveRouteSync]) async throws -> (compared: Int, problems: [String]) {
        var tiles = Set<TileID>()
        for route in routes { tiles.formUnion(RouteCover.tiles(of: route, options: options)) }
        var problems: [String] = []
        for tile in tiles.sorted(by: { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }) {
            let path = "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt"
            let (fromA, fromB) = (try await a.get(path, gzip: false), try await b.get(path, gzip: false))
            if fromA.status != fromB.status || fromA.body != fromB.body { problems.append("A and B differ at \(tile)") }
            let expected = try truth.tile(z: tile.z, x: tile.x, y: tile.y)
            for (i, sync) in syncs.enumerated() where (try? sync.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y)) != expected {
                problems.append("replica \(i) differs from the store's routes at \(tile)")
            }
        }
        return (tiles.count, problems)
    }

    /// The value of a metric without labels in a server's `/metrics` (nil when absent).
    static func metric(_ name: String, of server: TestServer.Handle) async throws -> Double? {
        let text = try await server.get("/metrics", gzip: false).text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }

    /// Writes sent to both replicas at once, interleaved, and an INSERT, UPDATE and DELETE made with psql: both end
    /// with every acknowledged write and byte-identical tiles over the union of the covers.
    @Test func writesToBothReplicasAndSQLReachBoth() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let database = PostgresCluster.database(of: url)
        let check = try await PostgresRouteStore.open(url: url, create: true, timeout: .seconds(60))
        try await Self.withReplicas(url: url) { a, b, syncA, syncB in
            let writers = [HTTPRouteWriter(prefix: "a", token: Self.token, seed: 31),
                           HTTPRouteWriter(prefix: "b", token: Self.token, seed: 32)]
            // B's event stream, open through the writes: every change, whoever made it, in sequence order.
            let eventsB = try await EventStreamReader(url: b.base + "/events")
            let helloB = try #require(try await eventsB.next())
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await writers[0].run(base: { a.base }, limit: 60, stop: { false }) }
                group.addTask { await writers[1].run(base: { b.base }, limit: 60, stop: { false }) }
            }
            try await cluster.psql(database, """
                INSERT INTO routes (id, properties, geom) VALUES
                  ('sql-1', '{"name": "by psql"}', ST_GeomFromText('LINESTRING(2.30 48.85, 2.32 48.86, 2.33 48.84)', 4326)),
                  ('sql-2', '{"name": "to delete"}', ST_GeomFromText('LINESTRING(2.35 48.85, 2.36 48.86)', 4326));
                UPDATE routes SET geom = ST_GeomFromText('LINESTRING(2.30 48.85, 2.31 48.87, 2.34 48.88)', 4326),
                    properties = '{"name": "updated by psql"}' WHERE id = 'sql-1';
                DELETE FROM routes WHERE id = 'sql-2';
                INSERT INTO routes (id, properties, geom) VALUES
                  ('sql-bad', '{}', ST_GeomFromText('POLYGON((2.3 48.8, 2.4 48.8, 2.4 48.9, 2.3 48.8))', 4326));
                """)
            #expect(try await Self.settle([a, b], newest: { try await check.newestSequence() }))
            let snapshot = try await check.loadAll()
            var ids: [Int64] = []
            while let event = try await eventsB.next(within: 5), ids.count < 1000 {
                ids.append(event.id ?? -1)
                if event.id == snapshot.sequence { break }
            }
            #expect(ids.last == snapshot.sequence && zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "\(ids)")
            eventsB.close()
            // A client that saw B's hello and reconnects to A is told what changed since, by the store's feed.
            let resumed = try await EventStreamReader(url: a.base + "/events", lastEventID: helloB.id)
            let resync = try #require(try await resumed.next())
            #expect(resync.name == "resync" && resync.id == snapshot.sequence)
            #expect(Set(resync.json["ids"] as? [String] ?? []).isSuperset(of: ["sql-1", "sql-2", "a-1", "b-1"]))
            resumed.close()
            for writer in writers {
                #expect(writer.unexpected.isEmpty, "\(writer.unexpected.prefix(3))")
                #expect(writer.uncertain.isEmpty)
                #expect(writer.acknowledged == 60)
                let problems = writer.problems(in: snapshot.routes)
                #expect(problems.isEmpty, "\(writer.prefix): \(problems.prefix(5))")
            }
            for server in [a, b] {
                let feature = try await server.get("/routes/sql-1").json
                #expect((feature["properties"] as? [String: Any])?["name"] as? String == "updated by psql")
                #expect(try await server.get("/routes/sql-2").status == 404)
                #expect(try await server.get("/routes/sql-bad").status == 404)
                // The bad row is counted and skipped; the store's position is in the metrics.
                #expect(try await Self.metric("routetiles_store_bad_rows_total", of: server) == 1)
                #expect((try await Self.metric("routetiles_store_changes_applied_total", of: server) ?? 0) >= 60)
                let newest = try await check.newestSequence()
                #expect(try await Self.metric("routetiles_store_newest_sequence", of: server) == Double(newest))
                #expect(try await Self.metric("routetiles_store_applied_sequence", of: server) == Double(newest))
            }
            let truth = RouteTiler(routes: snapshot.routes.map(\.route), options: Self.options)
            let sqlRoutes = [Route(parts: [[Coordinate(longitude: 2.35, latitude: 48.85), Coordinate(longitude: 2.36, latitude: 48.86)],
                                           [Coordinate(longitude: 2.30, latitude: 48.85), Coordinate(longitude: 2.33, latitude: 48.84)]])]
            let (compared, problems) = try await Self.compareTiles(a, b, routes: writers.flatMap(\.sent) + sqlRoutes + snapshot.routes.map(\.route),
                                                                    truth: truth, syncs: [syncA, syncB])
            #expect(problems.isEmpty, "\(problems.count) problems, such as \(problems.prefix(4))")
            #expect(compared > 40)
        }
        await check.close()
    }

    /// PostgreSQL stopped and started again while two clients keep writing to two replicas: writes in the outage
    /// get 503 with Retry-After (never a 2xx), tiles are served from the current routes meanwhile, and once the
    /// database is back the replicas reconnect and catch up without a restart: every write answered 2xx is applied
    /// on both, and both serve the same tiles.
    @Test func replicasRideOutARestartOfPostgreSQL() async throws {
        let cluster = try await PostgresCluster.newCluster()
        let url = try await cluster.newDatabase()
        try await Self.withReplicas(url: url, timeout: .seconds(2)) { a, b, syncA, syncB in
            let writers = [HTTPRouteWriter(prefix: "a", token: Self.token, seed: 41),
                           HTTPRouteWriter(prefix: "b", token: Self.token, seed: 42)]
            let stop = StopFlag()
            let outcome: (Bool, Bool, [Int], Bool, [Int]) = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await writers[0].run(base: { a.base }, limit: 3000, stopOnNoAnswer: false, pause: .milliseconds(10),
                                                     stop: { stop.isRaised }) }
                group.addTask { await writers[1].run(base: { b.base }, limit: 3000, stopOnNoAnswer: false, pause: .milliseconds(10),
                                                     stop: { stop.isRaised }) }
                defer { stop.raise() }
                func waitUntil(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
                    let deadline = Date().addingTimeInterval(seconds)
                    while !condition(), Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
                    return condition()
                }
                let before = await waitUntil(60) { writers.allSatisfy { $0.acknowledged >= 15 } }
                try await cluster.stopDetached()
                let outage = await waitUntil(40) { writers.allSatisfy { $0.unavailable >= 1 } }
                // Meanwhile, tiles are still served (from the cache or cut from the routes held).
                var tileStatuses: [Int] = []
                for server in [a, b] {
                    tileStatuses.append(try await server.get("/tiles/9/259/176.mvt").status)
                    tileStatuses.append(try await server.get("/tiles/14/8299/5636.mvt").status)
                }
                let degraded = try await a.get("/health").json["status"] as? String == "degraded"
                // Not ready (a load balancer sends requests elsewhere), but alive (no reason to restart it).
                var probes = [try await a.get("/health/ready").status, try await a.get("/health/live").status]
                let acknowledgedBefore = writers.map(\.acknowledged)
                try await cluster.startDetached()
                let after = await waitUntil(90) { zip(writers, acknowledgedBefore).allSatisfy { $0.acknowledged >= $1 + 15 } }
                probes.append(try await a.get("/health/ready").status)
                stop.raise()
                try await group.waitForAll()
                return (before && outage, after, tileStatuses, degraded, probes)
            }
            #expect(outcome.0, "writes before and during the outage: \(writers.map { ($0.acknowledged, $0.unavailable, $0.lastError ?? "") })")
            #expect(outcome.1, "writes after PostgreSQL came back: \(writers.map { ($0.acknowledged, $0.unavailable) })")
            #expect(outcome.2.allSatisfy { $0 == 200 || $0 == 204 }, "tile answers in the outage: \(outcome.2)")
            #expect(outcome.3, "/health reports the store unreachable in the outage")
            #expect(outcome.4 == [503, 200, 200], "ready, live in the outage; ready after: \(outcome.4)")
            // Once a replica knows the store is gone, writes are refused at once rather than after a time-out.
            let waits = writers.flatMap(\.unavailableAfter).sorted()
            #expect(waits.count >= 4 && waits[waits.count / 2] < .milliseconds(500), "503s answered after \(waits)")

            let check = try await PostgresRouteStore.open(url: url, create: false)
            #expect(try await Self.settle([a, b], newest: { try await check.newestSequence() }))
            let snapshot = try await check.loadAll()
            for writer in writers {
                #expect(writer.unexpected.isEmpty, "\(writer.unexpected.prefix(3))")
                let problems = writer.problems(in: snapshot.routes)
                #expect(problems.isEmpty, "\(writer.prefix): \(problems.prefix(5))")
            }
            for server in [a, b] {
                let store = try await server.get("/health").json["store"] as? [String: Any]
                #expect(store?["reachable"] as? Bool == true)
                #expect(((store?["reconnects"] as? NSNumber)?.intValue ?? 0) >= 1)
                #expect((try await Self.metric("routetiles_store_reconnects_total", of: server) ?? 0) >= 1)
                #expect((try await Self.metric("routetiles_store_errors_total", of: server) ?? 0) >= 1)
            }
            let truth = RouteTiler(routes: snapshot.routes.map(\.route), options: Self.options)
            let (compared, problems) = try await Self.compareTiles(a, b, routes: writers.flatMap(\.sent) + snapshot.routes.map(\.route), truth: truth,
                                                                    syncs: [syncA, syncB])
            #expect(problems.isEmpty, "\(problems.count) problems, such as \(problems.prefix(4))")
            #expect(compared > 40)
            await check.close()
        }
    }
}

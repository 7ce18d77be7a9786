import Foundation
import PostgresNIO
import RouteTiles
@testable import RouteTilesPostgres
@testable import RouteTilesServer
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The PostgreSQL route store on a real cluster of the tests' own (PostGIS from Debian): replicas that converge,
/// writers in plain SQL, commits out of order, bad rows, restarts of the database, and late replicas.
@Suite(.enabled(if: ExternalTool.required(PostgresCluster.installed)), .serialized, .heavy)
struct PostgresStoreTests {
    static let options = StoreConvergence.options

    func cluster() async throws -> PostgresCluster { try await PostgresCluster.sharedCluster() }

    /// A new database of the shared cluster: the cluster, the database's postgres:// URL and its name.
    func newDatabase() async throws -> (cluster: PostgresCluster, url: String, database: String) {
        let cluster = try await cluster()
        let url = try await cluster.newDatabase()
        return (cluster, url, PostgresCluster.database(of: url))
    }

    func open(_ url: String, timeout: Duration = .seconds(60)) async throws -> PostgresRouteStore {
        try await PostgresRouteStore.open(url: url, create: true, timeout: timeout)
    }

    /// Waits (at most `seconds`) until every sync has applied the store's newest change.
    func settle(_ syncs: [LiveRouteSync], store: any RouteStore, seconds: Double = 20) async throws -> Bool {
        try await eventually(within: seconds) {
            let newest = try await store.newestSequence()
            return syncs.allSatisfy { $0.status.applied >= newest }
        }
    }

    /// Every tile of `routes`' covers is the same on each sync as from one tiler over the store's routes.
    func mismatches(_ syncs: [LiveRouteSync], store: any RouteStore, extra: [Route] = []) async throws -> [String] {
        let snapshot = try await store.loadAll()
        let truth = RouteTiler(routes: snapshot.routes.map(\.route), options: Self.options)
        var tiles = Set<TileID>()
        for route in snapshot.routes.map(\.route) + extra { tiles.formUnion(RouteCover.tiles(of: route, options: Self.options)) }
        var problems: [String] = []
        for (i, sync) in syncs.enumerated() {
            if sync.routes.keys != snapshot.routes.map(\.key) { problems.append("replica \(i) order \(sync.routes.keys)") }
            for t in tiles where (try? sync.routes.snapshot.tile(z: t.z, x: t.x, y: t.y)) != (try? truth.tile(z: t.z, x: t.x, y: t.y)) {
                problems.append("replica \(i) tile \(t)")
            }
        }
        return problems
    }

    /// Expects every sync to settle, and then to cut the tiles of the store's routes.
    func expectConverged(_ syncs: [LiveRouteSync], store: any RouteStore,
                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await settle(syncs, store: store), sourceLocation: sourceLocation)
        #expect(try await mismatches(syncs, store: store).isEmpty, sourceLocation: sourceLocation)
    }

    @Test(arguments: [21, 22] as [UInt64])
    func twoReplicasConverge(seed: UInt64) async throws {
        let url = try await cluster().newDatabase()
        let a = try await open(url)
        let b = try await open(url)
        try await StoreConvergence.expectConvergence(a, b, seed: seed)
    }

    /// The SQL that counts `route`'s tail rows: its append rows in the feed newer than its row's version.
    func tailRows(_ route: String) -> String {
        "SELECT COUNT(*) FROM routes_changes c WHERE c.route_id = '\(route)' AND c.op = 'append' AND c.seq > (SELECT version FROM routes WHERE id = '\(route)')"
    }

    /// An append writes its feed row and nothing else: the route's `geom` and version stay as written, every replica
    /// and a fresh read see the whole line, and once the tail is long enough it is folded into `geom` without a
    /// change in the feed. An `UPDATE` of `geom` by plain SQL replaces the line and what was appended to it; one that
    /// keeps the line (properties) has the tail written into it; a `DELETE` takes the route and its tail.
    @Test func appendsGoToTheTailAndAreFoldedLater() async throws {
        let (cluster, url, database) = try await newDatabase()
        let a = try await open(url)
        let b = try await open(url)
        let (syncA, _) = try await LiveRouteSync.open(store: a, options: Self.options)
        let (syncB, _) = try await LiveRouteSync.open(store: b, options: Self.options, tick: .seconds(60))
        let follower = Task { await syncB.follow() }
        defer { follower.cancel() }
        var rng = SeededGenerator(seed: 23)
        var expected = Sample.track(count: 600, lon: 2.3, lat: 48.85, step: 0.0003, using: &rng)
        _ = try await syncA.write(.put([Route(id: .string("van"), parts: [expected]),
                                        Route(id: .string("bus"), parts: [Array(expected.prefix(20))])]))
        let geomBytes = try await cluster.psql(database, "SELECT length(ST_AsBinary(geom)) FROM routes WHERE id = 'van'")
        let rowVersion = try await cluster.psql(database, "SELECT version FROM routes WHERE id = 'van'")
        var lastAppend: Int64 = 0
        for step in 0..<10 {
            let fixes = [Coordinate(longitude: 2.2 + Double(step) * 1e-4, latitude: 48.9)]
            if case let .applied(_, _, sequences?) = try await syncA.write(.append(key: "van", points: fixes)) {
                lastAppend = sequences.upperBound
            }
            expected += fixes
        }
        #expect(try await cluster.psql(database, "SELECT length(ST_AsBinary(geom)) FROM routes WHERE id = 'van'") == geomBytes)
        #expect(try await cluster.psql(database, "SELECT version FROM routes WHERE id = 'van'") == rowVersion)
        #expect(try await cluster.psql(database, tailRows("van")) == "10")
        guard case let .route(read)? = try await a.rows(["van"])["van"] else { Issue.record("no route"); return }
        #expect(read.route.parts == [expected])
        #expect(read.version == lastAppend)
        // A store that did not write them reads them too (its ledger learnt from the tables).
        let c = try await open(url)
        guard case let .route(readByC)? = try await c.rows(["van"])["van"] else { Issue.record("no route"); return }
        #expect(readByC.route.parts == [expected] && readByC.version == lastAppend)
        await c.close()
        try await expectConverged([syncA, syncB], store: a)

        // Positions in batches of 8 until the tail (10 so far) is past the mark that starts a fold.
        for step in 0..<((AppendedTails.foldMark(key: "van", line: 600) - 10) / 8 + 1) {
            let fixes = (0..<8).map { Coordinate(longitude: 2.25 + Double(step * 8 + $0) * 1e-5, latitude: 48.91) }
            let outcomes = try await syncA.write(batch: [.append(key: "van", points: Array(fixes[0..<4])),
                                                         .append(key: "van", points: Array(fixes[4..<8]))])
            for outcome in outcomes { _ = try outcome.get() }
            expected += fixes
        }
        let changesBefore = try await cluster.psql(database, "SELECT COUNT(*) FROM routes_changes")
        let newest = try await a.newestSequence()
        let deadline = Date().addingTimeInterval(20)
        while try await cluster.psql(database, tailRows("van")) != "0", Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await cluster.psql(database, tailRows("van")) == "0")
        #expect(try await cluster.psql(database, "SELECT ST_NPoints(geom) FROM routes WHERE id = 'van'") == String(expected.count))
        #expect(try await cluster.psql(database, "SELECT version FROM routes WHERE id = 'van'") == String(newest))
        #expect(try await cluster.psql(database, "SELECT COUNT(*) FROM routes_changes") == changesBefore)
        guard case let .route(folded)? = try await a.rows(["van"])["van"] else { Issue.record("no route"); return }
        #expect(folded.route.parts == [expected])
        #expect(folded.version == newest)
        try await expectConverged([syncA, syncB], store: a)

        // Plain SQL: a new geom replaces the line and its tail; an UPDATE of the properties keeps the tail, written
        // into the line; a DELETE takes the route.
        let fix = Coordinate(longitude: 2.31, latitude: 48.86)
        _ = try await syncA.write(.append(key: "bus", points: [fix]))
        _ = try await syncA.write(.append(key: "van", points: [fix]))
        expected.append(fix)
        try await cluster.psql(database, "UPDATE routes SET geom = ST_GeomFromText('LINESTRING(2.30 48.85, 2.32 48.86)', 4326) WHERE id = 'bus'")
        #expect(try await cluster.psql(database, tailRows("bus")) == "0")
        try await cluster.psql(database, "UPDATE routes SET properties = '{\"name\": \"by psql\"}' WHERE id = 'van'")
        #expect(try await cluster.psql(database, tailRows("van")) == "0")
        #expect(try await cluster.psql(database, "SELECT ST_NPoints(geom) FROM routes WHERE id = 'van'") == String(expected.count))
        guard case let .route(bus)? = try await a.rows(["bus"])["bus"] else { Issue.record("no bus"); return }
        #expect(bus.route.pointCount == 2)
        guard case let .route(van)? = try await a.rows(["van"])["van"] else { Issue.record("no van"); return }
        #expect(van.route.parts == [expected])
        #expect(van.route.properties.first?.key == "name")
        try await syncA.catchUp()
        try await expectConverged([syncA, syncB], store: a)
        try await cluster.psql(database, "DELETE FROM routes WHERE id = 'van'")
        try await syncA.catchUp()
        try await expectConverged([syncA, syncB], store: a)
        await a.close()
        await b.close()
    }

    /// A live track bounded by `TrackRetention` is trimmed through PostgreSQL: the newest positions, in order, with
    /// the time of the last fix, on the writer and on a replica that follows the feed.
    @Test func tracksPastTheirBoundAreTrimmed() async throws {
        let url = try await cluster().newDatabase()
        let a = try await open(url)
        let b = try await open(url)
        let (syncA, _) = try await LiveRouteSync.open(store: a, options: Self.options, retention: TrackRetention(maxPoints: 40))
        let (syncB, _) = try await LiveRouteSync.open(store: b, options: Self.options, tick: .seconds(60))
        let follower = Task { await syncB.follow() }
        defer { follower.cancel() }
        func c(_ i: Int) -> Coordinate { Coordinate(longitude: 2.3 + Double(i) * 1e-4, latitude: 48.85) }
        _ = try await syncA.write(.put([Route(id: .string("van"), parts: [(0..<10).map(c)])]))
        for i in 10..<100 { _ = try await syncA.write(.append(key: "van", points: [c(i)])) }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (syncA.routes.pointCount(of: "van") ?? 0) > 56 { try await Task.sleep(for: .milliseconds(20)) }
        guard case let .route(van)? = try await a.rows(["van"])["van"] else { Issue.record("no route"); return }
        #expect((40...56).contains(van.route.pointCount), "\(van.route.pointCount)")
        #expect(van.route.parts == [Array((0..<100).map(c).suffix(van.route.pointCount))])
        #expect(van.lastFix != nil)
        try await expectConverged([syncA, syncB], store: a)
        await a.close()
        await b.close()
    }

    /// Retention by time through PostgreSQL, on a store of schema 6 brought to 7: the positions older than the
    /// bound leave the row, its `trimmed` records how many, both replicas cut the tiles of the stored routes, and
    /// the second replica's trim of the same route finds nothing more to do.
    @Test func tracksAreTrimmedByTimeOnEveryReplica() async throws {
        let (cluster, url, database) = try await newDatabase()
        await (try await open(url)).close()
        try await cluster.psql(database, """
            ALTER TABLE routes DROP COLUMN trimmed;
            COMMENT ON TABLE routes_changes IS 'RouteTiles route store, schema 6';
            """)
        let a = try await open(url)
        let b = try await open(url)
        #expect(try await cluster.psql(database, "SELECT obj_description('routes_changes'::regclass)") == "RouteTiles route store, schema 7")
        let retention = TrackRetention(keepFor: 3_600)
        let (syncA, _) = try await LiveRouteSync.open(store: a, options: Self.options, retention: retention)
        let (syncB, _) = try await LiveRouteSync.open(store: b, options: Self.options, retention: retention, tick: .seconds(60))
        let follower = Task { await syncB.follow() }
        defer { follower.cancel() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // 600 positions, one every 15 s: the first 360 are more than an hour old.
        let line = (0..<600).map { Coordinate(longitude: 2.3 + Double($0) * 1e-4, latitude: 48.85 + Double($0 % 9) * 2e-5) }
        let times = (0..<600).map { now - Int64(599 - $0) * 15_000 }
        _ = try await syncA.write(.put([Route(id: .string("van"), parts: [line], times: times)]))
        #expect(await syncA.trimOldPositions(now: now) == 1)
        let cutoff = now - 3_600_000
        let kept = times.filter { $0 >= cutoff }.count
        #expect(try await cluster.psql(database, "SELECT trimmed, ST_NPoints(geom) FROM routes WHERE id = 'van'") == "\(600 - kept)|\(kept)")
        try await expectConverged([syncA, syncB], store: a)
        let newest = try await a.newestSequence()
        _ = await syncB.trimOldPositions(now: now)
        #expect(try await a.newestSequence() == newest, "nothing older is left: no change")
        guard case let .route(van)? = try await b.rows(["van"])["van"] else { Issue.record("no route"); return }
        #expect(van.route.trimmed == 600 - kept && van.route.times == Array(times.suffix(kept)))
        await a.close()
        await b.close()
    }

    /// A batch of writes in one transaction: appends to routes read up front need no savepoint, one refused alone
    /// (no route, a route of points) leaves the others, and an append after another write of the batch to its route
    /// sees that write.
    @Test func aBatchRefusesWritesAloneAndKeepsTheirOrder() async throws {
        let url = try await cluster().newDatabase()
        let store = try await open(url)
        let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]
        let (sync, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        _ = try await sync.write(.put([Route(id: .string("line"), parts: [line]), Route(id: .string("other"), parts: [line]),
                                       Route(id: .string("stops"), parts: [[line[0]]], kind: .point)]))
        let fix = [Coordinate(longitude: 2.32, latitude: 48.82)]
        let outcomes = try await sync.write(batch: [
            .append(key: "stops", points: fix), .append(key: "nowhere", points: fix), .append(key: "line", points: fix),
            .remove(key: "line"), .append(key: "line", points: fix), .append(key: "other", points: fix),
        ])
        let kinds = outcomes.map { outcome -> String in
            switch outcome {
            case .success(.notALine): return "notALine"
            case .success(.notFound): return "notFound"
            case .success(.applied): return "applied"
            default: return "\(outcome)"
            }
        }
        #expect(kinds == ["notALine", "notFound", "applied", "applied", "notFound", "applied"])
        let rows = try await store.rows(["line", "other"])
        #expect(rows["line"] == nil)
        guard case let .route(other)? = rows["other"] else { Issue.record("no route"); return }
        #expect(other.route.parts == [line + fix])
        #expect(try await mismatches([sync], store: store).isEmpty)
        await store.close()
    }

    /// INSERT, UPDATE and DELETE made with psql reach both replicas through NOTIFY; rows that make no route are
    /// counted and skipped, and the feed goes on past them.
    @Test func sqlWritersReachEveryReplicaAndBadRowsAreSkipped() async throws {
        let (cluster, url, database) = try await newDatabase()
        let a = try await open(url)
        let b = try await open(url)
        let (syncA, _) = try await LiveRouteSync.open(store: a, options: Self.options, tick: .seconds(60))
        let (syncB, _) = try await LiveRouteSync.open(store: b, options: Self.options, tick: .seconds(60))
        // The tick is long: what arrives, arrives through NOTIFY.
        let followers = [Task { await syncA.follow() }, Task { await syncB.follow() }]
        defer { followers.forEach { $0.cancel() } }
        // Both listen before anything is written (a backend's last statement is its LISTEN while it waits).
        #expect(try await cluster.waitUntil(database, """
            (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%') >= 2
            """))

        _ = try await syncA.write(.put(Sample.parisRoutes(count: 3, points: 60)))
        try await cluster.psql(database, """
            INSERT INTO routes (id, properties, geom) VALUES
              ('sql-1', '{"name": "by psql"}', ST_GeomFromText('LINESTRING(2.30 48.85, 2.32 48.86, 2.33 48.84)', 4326)),
              ('sql-2', '{}', ST_GeomFromText('MULTILINESTRING((2.31 48.85, 2.32 48.87), (2.34 48.85, 2.35 48.86))', 4326));
            UPDATE routes SET properties = '{"name": "renamed"}', geodesic = true WHERE id = '101';
            DELETE FROM routes WHERE id = '100';
            INSERT INTO routes (id, properties, geom) VALUES
              ('bad-polygon', '{}', ST_GeomFromText('POLYGON((2.3 48.8, 2.4 48.8, 2.4 48.9, 2.3 48.8))', 4326)),
              ('bad-latitude', '{}', ST_GeomFromText('LINESTRING(2.3 48.8, 2.4 95)', 4326)),
              ('bad-properties', '"just text"', ST_GeomFromText('LINESTRING(2.3 48.8, 2.4 48.9)', 4326)),
              ('bad-kind', '{}', ST_GeomFromText('POINT(2.3 48.8)', 4326)),
              ('bad-empty', '{}', ST_GeomFromText('LINESTRING EMPTY', 4326)),
              ('bad-one-position', '{}', ST_SetSRID(ST_MakeLine(ARRAY[ST_MakePoint(2.3, 48.8)]), 4326));
            UPDATE routes SET kind = 'line' WHERE id = 'bad-kind';
            INSERT INTO routes (id, properties, geom) VALUES
              ('after-bad', '{}', ST_GeomFromText('LINESTRING(2.36 48.85, 2.37 48.86)', 4326));
            """)
        #expect(try await settle([syncA, syncB], store: a))
        for sync in [syncA, syncB] {
            #expect(sync.routes.routeWithoutPositions("sql-1")?.properties == [Property("name", .string("by psql"))])
            #expect(sync.routes.pointCount(of: "sql-2") == 4)
            #expect(sync.routes.routeWithoutPositions("101")?.geodesic == true)
            #expect(sync.routes.routeWithoutPositions("100") == nil)
            #expect(sync.routes.routeWithoutPositions("after-bad") != nil)
            for bad in ["bad-polygon", "bad-latitude", "bad-properties", "bad-kind", "bad-empty", "bad-one-position"] {
                #expect(sync.routes.routeWithoutPositions(bad) == nil)
            }
            #expect(sync.status.badRows >= 6)
        }
        let problems = try await mismatches([syncA, syncB], store: a)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        // A replica started now reads the bad rows apart.
        let (late, bad) = try await LiveRouteSync.open(store: a, options: Self.options)
        #expect(Set(bad.map(\.key)) == ["bad-polygon", "bad-latitude", "bad-properties", "bad-kind", "bad-empty", "bad-one-position"])
        #expect(try await mismatches([late], store: a).isEmpty)
        // TRUNCATE would bypass the feed: it is refused.
        await #expect(throws: (any Error).self) { try await cluster.psql(database, "TRUNCATE routes") }
        await a.close()
        await b.close()
    }

    /// Two writers whose sequence numbers would commit out of order: the first takes its number and holds its
    /// transaction open; the second must wait for it (the trigger's advisory lock), so no reader can see the
    /// later number while the earlier one is still to come.
    @Test func sequenceNumbersCommitInOrder() async throws {
        let (cluster, url, database) = try await newDatabase()
        let store = try await open(url)
        let (reader, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        let first = try await open(url)
        let second = try await open(url)
        let (held, release) = AsyncStream.makeStream(of: Void.self)
        let (taken, tookNumber) = AsyncStream.makeStream(of: Int64.self)
        // Writer 1: inserts (taking its sequence number), then waits before committing.
        let writer1 = Task {
            try await first.client.withTransaction(logger: Logger(label: "t1")) { connection in
                let rows = try await connection.query("INSERT INTO routes (id, geom) VALUES ('early', ST_GeomFromText('LINESTRING(2.3 48.8, 2.31 48.81)', 4326)) RETURNING version", logger: Logger(label: "t1"))
                for try await version in rows.decode(Int64.self) { tookNumber.yield(version) }
                var iterator = held.makeAsyncIterator()
                _ = await iterator.next()
            }
        }
        var numbers = taken.makeAsyncIterator()
        let early = try #require(await numbers.next())
        // Writer 2 starts while writer 1 is open.
        let writer2 = Task {
            _ = try await second.commit(.put([Route(id: .string("late"), parts: [[Coordinate(longitude: 2.32, latitude: 48.82), Coordinate(longitude: 2.33, latitude: 48.83)]])]))
        }
        // Writer 2 waits on a lock writer 1 holds.
        #expect(try await cluster.waitUntil(database, "EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted)"))
        // Writer 2 has not committed: nothing is newer than what the reader has, and the reader applies nothing.
        #expect(try await store.newestSequence() < early)
        #expect(try await reader.catchUp() == nil)
        release.yield()
        try await writer1.value
        try await writer2.value
        let applied = try #require(try await reader.catchUp())
        #expect(applied.sequences == early...(early + 1))
        #expect(reader.routes.keys == ["early", "late"])
        #expect(try await store.changes(after: 0, limit: 10).map(\.key) == ["early", "late"])
        await store.close()
        await first.close()
        await second.close()
    }

    /// Old changes pruned with plain SQL: a replica that still needed them loads the table again; a rolled-back
    /// writer's unused number is no such gap.
    @Test func aReplicaBehindPrunedChangesReloads() async throws {
        let (cluster, url, database) = try await newDatabase()
        let store = try await open(url)
        let (writer, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        let (behind, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        _ = try await writer.write(.put(Sample.parisRoutes(count: 3, points: 40)))
        try await behind.catchUp()
        // A writer that rolls back leaves its sequence number unused: the reader goes on without a reload.
        await #expect(throws: (any Error).self) {
            try await cluster.psql(database, """
                BEGIN; INSERT INTO routes (id, geom) VALUES ('rolled-back', ST_GeomFromText('LINESTRING(2.3 48.8, 2.4 48.9)', 4326));
                SELECT 1/0; COMMIT;
                """)
        }
        try await cluster.psql(database, "INSERT INTO routes (id, geom) VALUES ('after-gap', ST_GeomFromText('LINESTRING(2.3 48.8, 2.4 48.9)', 4326))")
        let afterGap = try #require(try await behind.catchUp())
        #expect(afterGap.changeCount == 1 && behind.routes.routeWithoutPositions("after-gap") != nil)
        // Changes that are the only ones of their routes, then more: pruned, the first leave no trace.
        _ = try await writer.write(.remove(key: "100"))
        _ = try await writer.write(.put([Route(id: .string("fresh"), parts: [[Coordinate(longitude: 2.33, latitude: 48.84), Coordinate(longitude: 2.34, latitude: 48.85)]])]))
        for i in 0..<10 { _ = try await writer.write(.append(key: "101", points: [Coordinate(longitude: 2.4 + Double(i) * 0.001, latitude: 48.86)])) }
        try await cluster.psql(database, "DELETE FROM routes_changes WHERE seq < (SELECT MAX(seq) - 2 FROM routes_changes)")
        let reloaded = try #require(try await behind.catchUp())
        #expect(reloaded.change.keys.contains("100") && reloaded.change.keys.contains("fresh"))
        #expect(behind.status.applied == (try await store.newestSequence()))
        #expect(try await mismatches([writer, behind], store: store).isEmpty)
        await store.close()
    }

    /// A route's tail is its append rows in the feed: the documented prune (`DELETE FROM routes_changes WHERE …`)
    /// run on every row leaves exactly the rows still in a tail, records what it deleted in
    /// `routes_changes_pruned`, and every route reads the same from the writing store, from a store opened after, and
    /// on a replica that was behind the prune (it loads everything again). Appends go on afterwards, to routes with
    /// ids COPY's text format must escape too.
    @Test func aPruneOfTheFeedKeepsTheTails() async throws {
        let (cluster, url, database) = try await newDatabase()
        let store = try await open(url)
        let (writer, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        let (behind, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        let odd = "tab\there, back\\slash\nnew line"
        var routes = Sample.parisRoutes(count: 4, points: 30)
        routes.append(Route(id: .string(odd), parts: [[Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]]))
        _ = try await writer.write(.put(routes))
        try await behind.catchUp()
        for i in 0..<12 {
            let fix = [Coordinate(longitude: 2.35 + Double(i) * 0.0007, latitude: 48.85 + Double(i % 3) * 0.0004)]
            let outcomes = try await writer.write(batch: [.append(key: "10\(i % 3)", points: fix), .append(key: odd, points: fix)])
            for outcome in outcomes { _ = try outcome.get() }
        }
        // Route 100 is written whole again: its appends leave its tail.
        _ = try await writer.write(.replace(key: "100", route: routes[0]))
        let before = try await store.loadAll()
        let tailRows = try await cluster.psql(database, """
            SELECT COUNT(*) FROM routes_changes c JOIN routes r ON r.id = c.route_id WHERE c.op = 'append' AND c.seq > r.version
            """)
        #expect(tailRows == "20")  // 4 each to 101 and 102, 12 to the odd one; 100's 4 were written into its line
        let newest = try await store.newestSequence()
        try await cluster.psql(database, "DELETE FROM routes_changes")
        #expect(try await cluster.psql(database, "SELECT COUNT(*) FROM routes_changes") == tailRows)
        #expect(try await cluster.psql(database, "SELECT through FROM routes_changes_pruned") == String(newest))
        func same(_ snapshot: RouteStoreSnapshot) -> Bool {
            snapshot.routes.map(\.key) == before.routes.map(\.key)
                && zip(snapshot.routes, before.routes).allSatisfy { $0.route.parts == $1.route.parts && $0.version == $1.version }
        }
        #expect(same(try await store.loadAll()))
        let fresh = try await open(url)
        #expect(same(try await fresh.loadAll()))
        let read = try await fresh.rows(before.routes.map(\.key))
        for route in before.routes {
            guard case let .route(found)? = read[route.key] else { Issue.record("no \(route.key)"); continue }
            #expect(found.route.parts == route.route.parts && found.version == route.version, "\(route.key)")
        }
        // The replica behind the prune is told so and loads everything again.
        await #expect(throws: RouteChangesPruned.self) { _ = try await store.changes(after: behind.status.applied, limit: 100) }
        let reloaded = try #require(try await behind.catchUp())
        #expect(reloaded.change.keys.contains("100") && behind.status.applied == newest)
        #expect(try await store.newestSequence() == newest)
        // Appends go on, from the store opened after the prune too.
        let (late, _) = try await LiveRouteSync.open(store: fresh, options: Self.options)
        _ = try await late.write(.append(key: odd, points: [Coordinate(longitude: 2.4, latitude: 48.9)]))
        _ = try await writer.write(.append(key: "101", points: [Coordinate(longitude: 2.41, latitude: 48.9)]))
        try await writer.catchUp()
        try await behind.catchUp()
        try await late.catchUp()
        #expect(try await mismatches([writer, behind, late], store: store).isEmpty)
        guard case let .route(oddRoute)? = try await store.rows([odd])[odd] else { Issue.record("no odd route"); return }
        #expect(oddRoute.route.pointCount == 2 + 12 + 1)
        await fresh.close()
        await store.close()
    }

    /// A store of schema 4 kept appended positions in `routes_tails`: opened by a server that may set it up, they are
    /// written into their lines (the versions already counted them) and the table dropped; a server that may not
    /// set it up refuses it, saying so.
    @Test func aSchema4StoreHasItsTailsFoldedIn() async throws {
        let (cluster, url, database) = try await newDatabase()
        await (try await open(url)).close()
        // Schema 4 as it was: a route whose version is its last append's, and the append in routes_tails.
        try await cluster.psql(database, """
            INSERT INTO routes (id, geom) VALUES ('van', ST_GeomFromText('LINESTRING(2.30 48.85, 2.31 48.86)', 4326));
            INSERT INTO routes (id, geom) VALUES ('bus', ST_GeomFromText('MULTILINESTRING((2.30 48.85, 2.31 48.86), (2.32 48.85, 2.33 48.86))', 4326));
            CREATE TABLE routes_tails (route_id text NOT NULL REFERENCES routes (id) ON UPDATE CASCADE ON DELETE CASCADE,
                seq bigint NOT NULL, points double precision[] NOT NULL, PRIMARY KEY (route_id, seq));
            INSERT INTO routes_tails VALUES ('van', 1001, '{2.32,48.87}'), ('van', 1002, '{2.33,48.88,2.34,48.89}'),
                ('bus', 1003, '{2.35,48.87}');
            SELECT setval('routes_changes_seq', 1003);
            SET routetiles.fold = 'on';
            UPDATE routes SET version = 1002 WHERE id = 'van';
            UPDATE routes SET version = 1003 WHERE id = 'bus';
            COMMENT ON TABLE routes_changes IS 'RouteTiles route store, schema 4';
            """)
        await #expect(throws: RouteStoreError.self) {
            _ = try await PostgresRouteStore.open(url: url, create: false, timeout: .seconds(60))
        }
        let store = try await open(url)
        #expect(try await cluster.psql(database, "SELECT to_regclass('routes_tails') IS NULL") == "t")
        #expect(try await cluster.psql(database, "SELECT ST_AsText(geom) || ' ' || version FROM routes WHERE id = 'van'")
            == "LINESTRING(2.3 48.85,2.31 48.86,2.32 48.87,2.33 48.88,2.34 48.89) 1002")
        #expect(try await cluster.psql(database, "SELECT ST_AsText(geom) || ' ' || version FROM routes WHERE id = 'bus'")
            == "MULTILINESTRING((2.3 48.85,2.31 48.86),(2.32 48.85,2.33 48.86,2.35 48.87)) 1003")
        let snapshot = try await store.loadAll()
        #expect(snapshot.routes.map(\.route.pointCount) == [5, 5])
        await store.close()
        await (try await PostgresRouteStore.open(url: url, create: false, timeout: .seconds(60))).close()
    }

    /// Times are the geometry's M (Unix seconds): a schema-5 table (`geometry(Geometry, 4326)`, which refuses M) is
    /// brought to 6 without a rewrite; PostGIS's own functions read the times RouteTiles wrote; a LineString M
    /// written with SQL is a route with times and a 2D one a route without; positions without times do not extend
    /// a timed route.
    @Test func timesAreMThatPostGISReads() async throws {
        let (cluster, url, database) = try await newDatabase()
        await (try await open(url)).close()
        try await cluster.psql(database, """
            ALTER TABLE routes DROP CONSTRAINT routes_geom_srid;
            ALTER TABLE routes ALTER COLUMN geom TYPE geometry(Geometry, 4326);
            COMMENT ON TABLE routes_changes IS 'RouteTiles route store, schema 5';
            """)
        let fileNode = try await cluster.psql(database, "SELECT pg_relation_filenode('routes')")
        await #expect(throws: RouteStoreError.self) {
            _ = try await PostgresRouteStore.open(url: url, create: false, timeout: .seconds(60))
        }
        let store = try await open(url)
        #expect(try await cluster.psql(database, "SELECT pg_relation_filenode('routes')") == fileNode)
        #expect(try await cluster.psql(database, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'routes'::regclass AND attname = 'geom'") == "geometry")

        let line = [Coordinate(longitude: 2.30, latitude: 48.85), Coordinate(longitude: 2.31, latitude: 48.86),
                    Coordinate(longitude: 2.32, latitude: 48.87)]
        let times: [Int64] = [1_795_788_300_000, 1_795_788_330_250, 1_795_788_360_000]
        _ = try await store.commit(.put([Route(id: .string("van"), parts: [line], times: times)]))
        #expect(try await cluster.psql(database, "SELECT ST_Zmflag(geom) FROM routes WHERE id = 'van'") == "1")
        #expect(try await cluster.psql(database, "SELECT ST_M(ST_EndPoint(geom)) FROM routes WHERE id = 'van'") == "1795788360")
        // Where the van was at 14:05:15, by PostGIS: 15 s into the 30.25 s of the first segment.
        let located = try await cluster.psql(database, """
            SELECT ST_AsText(ST_LocateAlong(geom, extract(epoch from timestamptz '2026-11-27T14:05:15Z'))) FROM routes WHERE id = 'van'
            """)
        #expect(located.hasPrefix("MULTIPOINT M ((2.30495867") && located.hasSuffix(" 1795788315))"), "\(located)")
        guard case let .route(van)? = try await store.rows(["van"])["van"] else {
            Issue.record("no van")
            return
        }
        #expect(van.route.times == times)
        guard case .timesDiffer(key: "van", routeHasTimes: true) = try await store.commit(.append(key: "van", points: [line[0]])) else {
            Issue.record("an untimed append to a timed route was not refused")
            return
        }

        try await cluster.psql(database, """
            INSERT INTO routes (id, geom) VALUES
              ('sql-m', ST_GeomFromText('LINESTRING M (2.3 48.8 1795788300, 2.4 48.9 1795788360.5)', 4326)),
              ('sql-2d', ST_GeomFromText('LINESTRING (2.3 48.8, 2.4 48.9)', 4326)),
              ('sql-back', ST_GeomFromText('LINESTRING M (2.3 48.8 1795788300, 2.4 48.9 1795788200)', 4326));
            """)
        let rows = try await store.rows(["sql-m", "sql-2d", "sql-back"])
        guard case let .route(timed)? = rows["sql-m"], case let .route(flat)? = rows["sql-2d"],
              case let .bad(back)? = rows["sql-back"] else {
            Issue.record("rows: \(rows)")
            return
        }
        #expect(timed.route.times == [1_795_788_300_000, 1_795_788_360_500])
        #expect(flat.route.times == nil)
        #expect(back.message.contains("times (M)"), "\(back.message)")
        await #expect(throws: (any Error).self) {
            try await cluster.psql(database, "INSERT INTO routes (id, geom) VALUES ('wrong-srid', ST_GeomFromText('LINESTRING (2.3 48.8, 2.4 48.9)', 3857))")
        }
        await store.close()
    }

    /// Fixes with times through PostgreSQL: appended rows carry their times (the feed's `times`), a replica reads
    /// them, a late fix and a retry are handled as in every store, a fold and another program's UPDATE write the
    /// tail into the line with its M, and the route reads the same throughout.
    @Test func fixesWithTimesAreKeptThroughTailsAndFolds() async throws {
        let (cluster, url, database) = try await newDatabase()
        let a = try await open(url)
        let b = try await open(url)
        let (syncB, _) = try await LiveRouteSync.open(store: b, options: Self.options)
        var rng = SeededGenerator(seed: 3507)
        var time: Int64 = 1_795_788_300_000
        let track = Sample.track(count: 200, lon: 2.35, lat: 48.85, step: 0.0004, using: &rng).map { point -> (Coordinate, Int64) in
            time += Int64.random(in: 500...3000, using: &rng)
            return (point, time)
        }
        _ = try await a.commit(.put([Route(id: .string("van"), parts: [track.prefix(10).map(\.0)],
                                           times: track.prefix(10).map(\.1))]))
        // In batches of a few, each with two appends to the van: now and then a fix held back and sent with the next
        // batch (a late fix), and a stored one resent (a retry).
        var sent = 10
        var heldBack: [(Coordinate, Int64)] = []
        while sent < track.count || !heldBack.isEmpty {
            let count = min(track.count - sent, 7)
            var first = Array(track[sent..<(sent + count / 2)])
            let second = Array(track[(sent + count / 2)..<(sent + count)])
            let late = heldBack + (sent % 4 == 0 ? [track[sent - 3]] : [])
            heldBack = []
            if sent % 3 == 0, first.count >= 2 { heldBack = [first.removeFirst()] }
            let results = try await a.commit(batch: [
                .appendTimed(key: "van", points: first.map(\.0), times: first.map(\.1)),
                .appendTimed(key: "van", points: (second + late).map(\.0), times: (second + late).map(\.1)),
            ])
            for result in results {
                guard case .success(.committed) = result else {
                    Issue.record("at \(sent): \(result)")
                    return
                }
            }
            sent += count
        }
        func stored(_ store: any RouteStore) async throws -> Route? {
            guard case let .route(row)? = try await store.rows(["van"])["van"] else { return nil }
            return row.route
        }
        #expect(try await stored(a)?.times == track.map(\.1))
        #expect(try await stored(a)?.parts.flatMap { $0 } == track.map(\.0))
        // The replica applies the feed (its appends carry their times) and reads the same route.
        try await syncB.catchUp()
        #expect(try await stored(b)?.times == track.map(\.1))
        // Another program's UPDATE of the properties writes the tail into the line, with its M.
        try await cluster.psql(database, "UPDATE routes SET properties = '{\"name\": \"by psql\"}' WHERE id = 'van'")
        #expect(try await cluster.psql(database, "SELECT ST_Zmflag(geom) || ' ' || ST_NPoints(geom) FROM routes WHERE id = 'van'")
            == "1 \(track.count)")
        #expect(try await cluster.psql(database, "SELECT ST_M(ST_EndPoint(geom)) * 1000 FROM routes WHERE id = 'van'")
            == String(track.last?.1 ?? 0))
        #expect(try await stored(a)?.times == track.map(\.1))
        await a.close()
        await b.close()
    }

    /// A writer in plain SQL updates a row while RouteTiles, holding the writers' lock, writes the same row: the
    /// SQL statement waits for the lock before it locks any row, so neither fails with a deadlock.
    @Test func sqlWritersAndRouteTilesDoNotDeadlock() async throws {
        let (cluster, url, database) = try await newDatabase()
        let store = try await open(url)
        _ = try await store.commit(.put([Route(id: .string("shared"), parts: [[Coordinate(longitude: 2.3, latitude: 48.8),
                                                                            Coordinate(longitude: 2.31, latitude: 48.81)]])]))
        let logger = Logger(label: "deadlock-test")
        let ours = try await store.client.withTransaction(logger: logger) { connection -> Task<ExternalTool.Result, any Error> in
            // As `commit` does: the writers' lock first.
            try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(store.schema.lockKeys))"), logger: logger)
            let sql = Task {
                try await ExternalTool.runDetached("/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                    "-p", String(cluster.port), "-U", "postgres", "-d", database, "-c",
                    "UPDATE routes SET properties = '{\"by\": \"psql\"}' WHERE id = 'shared'"])
            }
            // The psql UPDATE waits on the lock this transaction holds.
            #expect(try await cluster.waitUntil(database, "EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted)"))
            try await connection.query(PostgresQuery(unsafeSQL: "UPDATE routes SET properties = '{\"by\": \"routetiles\"}' WHERE id = 'shared'"),
                                       logger: logger)
            return sql
        }
        let sql = try await ours.value
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(try await cluster.psql(database, "SELECT properties->>'by' FROM routes WHERE id = 'shared'") == "psql")
        await store.close()
    }

    /// Set up once by its owner, a store is served by a role that may only read and write its tables: a server
    /// that finds the schema's version runs no DDL. An older schema (no version) is brought up to date.
    @Test func aReadWriteRoleServesAStoreSetUpByItsOwner() async throws {
        let (cluster, url, database) = try await newDatabase()
        await (try await open(url)).close()
        try await cluster.psql(database, "COMMENT ON TABLE routes_changes IS NULL")
        // An older store: set up again, with the version written.
        let owner = try await open(url)
        #expect(try await cluster.psql(database, "SELECT obj_description('routes_changes'::regclass, 'pg_class')") == owner.schema.versionComment)
        try await cluster.psql(database, """
            DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tiles_rw') THEN CREATE ROLE tiles_rw LOGIN; END IF; END $$;
            GRANT SELECT, INSERT, UPDATE, DELETE ON routes, routes_changes, routes_imports, routes_changes_pruned TO tiles_rw;
            GRANT USAGE ON SEQUENCE routes_changes_seq TO tiles_rw;
            """)
        let limited = try await open(url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://tiles_rw@"))
        let (sync, _) = try await LiveRouteSync.open(store: limited, options: Self.options)
        _ = try await sync.write(.put(Sample.parisRoutes(count: 2, points: 30)))
        _ = try await sync.write(.append(key: "100", points: [Coordinate(longitude: 2.31, latitude: 48.86)]))
        _ = try await sync.write(.remove(key: "101"))
        #expect(try await owner.loadAll().routes.map(\.key) == ["100"])
        // Files imported as `serve FILES --store` imports them: the role writes the import records too.
        let imported = try await RouteStoreImport.load(Sample.parisRoutes(count: 3, points: 30), into: limited)
        #expect(imported.added == 2 && imported.keptChanged == 1, "\(imported)")
        #expect(try await limited.importRecords().count == 3)
        await limited.close()
        await owner.close()
    }

    /// A replica started after a thousand changes (SQL and API alike) loads the same routes and cuts the same tiles.
    @Test func aReplicaStartedLateConverges() async throws {
        let (cluster, url, database) = try await newDatabase()
        let store = try await open(url)
        let (early, _) = try await LiveRouteSync.open(store: store, options: Self.options)
        _ = try await early.write(.put(Sample.parisRoutes(count: 5, points: 80)))
        try await cluster.psql(database, """
            INSERT INTO routes (id, properties, geom)
              SELECT 'g' || i, jsonb_build_object('i', i),
                     ST_MakeLine(ST_MakePoint(2.3 + i * 0.0001, 48.8), ST_MakePoint(2.31 + i * 0.0001, 48.81 + (i % 7) * 0.001))
              FROM generate_series(1, 700) AS i;
            UPDATE routes SET properties = properties || '{"touched": true}' WHERE id LIKE 'g%' AND (properties->>'i')::int % 2 = 0;
            DELETE FROM routes WHERE id LIKE 'g%' AND (properties->>'i')::int % 5 = 0;
            """)
        for i in 0..<20 {
            _ = try await early.write(.append(key: "10\(i % 5)", points: [Coordinate(longitude: 2.3 + Double(i) * 0.001, latitude: 48.85)]))
        }
        #expect(try await store.newestSequence() >= 1000)
        try await early.catchUp()
        let late = try await open(url)
        let (replica, _) = try await LiveRouteSync.open(store: late, options: Self.options)
        #expect(replica.status.applied == early.status.applied)
        let problems = try await mismatches([early, replica], store: store)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        await store.close()
        await late.close()
    }
}

import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Appends to a SQLite store go to the route's tail, not its row: an append writes what it adds whatever the length
/// of the route, the route reads back whole (tail included) with its version, and the tail is folded into the row
/// once it is long enough, without a change to the route.
@Suite struct AppendedTailTests {
    static func line(_ count: Int, seed: UInt64) -> [Coordinate] {
        var rng = SeededGenerator(seed: seed)
        return Sample.track(count: count, lon: 2.3, lat: 48.85, step: 0.0003, using: &rng)
    }

    /// The append rows of the feed that are part of a tail (newer than their route's version), by SQL alone.
    static let liveTailRows = """
        SELECT COUNT(*) FROM route_changes t JOIN routes r ON r.id = t.route_id WHERE t.op = 'append' AND t.seq > r.version
        """

    /// The route stored under `key`: nil when there is none, or when its row does not make a route.
    static func route(_ key: String, in store: SQLiteRouteStore) async throws -> StoredRoute? {
        guard case let .route(stored)? = try await store.rows([key])[key] else { return nil }
        return stored
    }

    /// Runs `sql` on the file with the sqlite3 shell (an independent reader) and returns its output.
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        let result = try ExternalTool.run("/usr/bin/sqlite3", [path, sql])
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func appendsGoToTheTailAndReadBackWhole() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let store = try SQLiteRouteStore(path: path)
        let long = Self.line(20_000, seed: 1)
        _ = try await store.commit(.put([Route(id: .string("long"), parts: [long]),
                                         Route(id: .string("short"), parts: [Self.line(50, seed: 2)])]))
        let rowBytes = try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'long'")
        var expected = long
        var version: Int64 = 0
        for step in 0..<40 {
            let fix = [Coordinate(longitude: 2.4 + Double(step) * 1e-4, latitude: 48.9)]
            guard case let .committed(changes, _) = try await store.commit(.append(key: "long", points: fix)) else {
                Issue.record("step \(step): not committed")
                return
            }
            expected += fix
            version = changes[0].sequence
        }
        // The row was not written again: its line is as stored, and the 40 appends are its tail, the 40 newest rows
        // of the feed; no other table holds them.
        #expect(try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'long'") == rowBytes)
        #expect(try Self.sqlite(path, Self.liveTailRows + " AND t.route_id = 'long'") == "40")
        #expect(try Self.sqlite(path, "SELECT MAX(seq) FROM route_changes WHERE op = 'append'") == String(version))
        #expect(try Self.sqlite(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                == "route_changes\nroute_imports\nroutes\nroutetiles_store")
        let stored = try #require(try await Self.route("long", in: store))
        #expect(stored.route.parts == [expected])
        #expect(stored.version == version)
        let all = try await store.loadAll()
        #expect(all.routes.first { $0.key == "long" }?.route.parts == [expected])
        #expect(all.routes.first { $0.key == "long" }?.version == version)

        // A replacement empties the tail (its version passes the rows); a removal too (the route's row is gone),
        // and a route made again under the removed key starts with no tail.
        let replacement = Self.line(10, seed: 3)
        _ = try await store.commit(.replace(key: "long", route: Route(parts: [replacement])))
        #expect(try Self.sqlite(path, Self.liveTailRows) == "0")
        let replaced = try #require(try await Self.route("long", in: store))
        #expect(replaced.route.parts == [replacement])
        _ = try await store.commit(.append(key: "short", points: [Coordinate(longitude: 2.3, latitude: 48.8)]))
        _ = try await store.commit(.remove(key: "short"))
        #expect(try Self.sqlite(path, Self.liveTailRows) == "0")
        let again = Self.line(5, seed: 9)
        _ = try await store.commit(.put([Route(id: .string("short"), parts: [again])]))
        let remade = try #require(try await Self.route("short", in: store))
        #expect(remade.route.parts == [again])
        #expect(try await store.loadAll().routes.first { $0.key == "short" }?.route.parts == [again])
        await store.close()
    }

    /// A tail of 512 positions (more than half of the 600-position line) is folded into the row: the tail empties,
    /// the route and its version read the same, and the fold recorded no change. Appends after it go on.
    @Test func aLongTailIsFoldedWithoutChangingTheRoute() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let store = try SQLiteRouteStore(path: path)
        var expected = Self.line(600, seed: 4)
        _ = try await store.commit(.put([Route(id: .string("van"), parts: [expected])]))
        var versions: [Int64] = []
        for step in 0..<(AppendedTails.foldMark(key: "van", line: 600) / 8 + 3) {
            let fixes = (0..<8).map { Coordinate(longitude: 2.2 + Double(step * 8 + $0) * 1e-5, latitude: 48.9) }
            // Eight appends in one transaction.
            let results = try await store.commit(batch: [.append(key: "van", points: Array(fixes[0..<4])),
                                                         .append(key: "van", points: Array(fixes[4..<8]))])
            for case let .success(.committed(changes, _)) in results { versions += changes.map(\.sequence) }
            expected += fixes
        }
        // The fold runs on the store's queue after the commit that crossed the mark; the next call runs after it.
        let newest = try await store.newestSequence()
        #expect(newest == versions.last)
        let tailRows = Int(try Self.sqlite(path, Self.liveTailRows)) ?? -1
        #expect(tailRows < AppendedTails.minimumFold / 4, "\(tailRows) tail rows: no fold")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_changes") == String(1 + versions.count))
        let stored = try #require(try await Self.route("van", in: store))
        #expect(stored.route.parts == [expected])
        #expect(stored.version == versions.last)
        // The folded row holds the line it folded: read by SQLite alone, its size is the WKB of more positions.
        let bytes = Int(try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'van'")) ?? 0
        #expect(bytes > 9 + 16 * (600 + AppendedTails.minimumFold - 1))
        await store.close()
    }

    /// A store folds the tail it wrote itself from the positions its ledger kept, without reading the tail's rows:
    /// rows altered behind its back (by the sqlite3 shell) do not reach the folded line, while a store that did not
    /// write them (opened afterwards) reads the rows as they are. Both paths give the route back whole.
    @Test func aFoldOfTheStoresOwnAppendsReadsNoTailRow() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let store = try SQLiteRouteStore(path: path)
        let start = Self.line(600, seed: 21)
        _ = try await store.commit(.put([Route(id: .string("bus"), parts: [start])]))
        let mark = AppendedTails.foldMark(key: "bus", line: 600)
        var appended: [Coordinate] = []
        // One short of the mark: no fold yet.
        for step in 0..<(mark - 1) {
            let fix = Coordinate(longitude: 2.2 + Double(step) * 1e-5, latitude: 48.9)
            _ = try await store.commit(.append(key: "bus", points: [fix]))
            appended.append(fix)
        }
        // Every tail row's positions replaced, behind the store's back, by one far away.
        let far = WellKnownBinary.multiPoint([Coordinate(longitude: 100, latitude: -40)])
        let hex = far.map { String(format: "%02X", $0) }.joined()
        _ = try Self.sqlite(path, "UPDATE route_changes SET points = X'\(hex)' WHERE op = 'append'")
        // A second store, opened now, learns the tail from the file: it reads the altered rows.
        let other = try SQLiteRouteStore(path: path)
        let seen = try #require(try await Self.route("bus", in: other))
        #expect(seen.route.parts.first?.last == Coordinate(longitude: 100, latitude: -40))
        await other.close()
        // The fix that reaches the mark folds the tail from the positions the first store kept.
        let last = Coordinate(longitude: 2.3, latitude: 48.91)
        _ = try await store.commit(.append(key: "bus", points: [last]))
        appended.append(last)
        _ = try await store.newestSequence() // after the fold it queued
        #expect(Int(try Self.sqlite(path, Self.liveTailRows)) == 0, "no fold")
        let reopened = try SQLiteRouteStore(path: path)
        let folded = try #require(try await Self.route("bus", in: reopened))
        #expect(folded.route.parts == [start + appended])
        await reopened.close()
        await store.close()
    }

    /// A store of schema 4 or 3 kept tails in `route_tails` (3 with an index by route): opened, its tails are folded
    /// into their lines and the table dropped (schema 5). The table, not the feed, is what counted: a feed row a
    /// prune took is not missed.
    @Test(arguments: ["3", "4"])
    func aStoreWithATailTableHasItFoldedIn(schema: String) async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let line = Self.line(30, seed: 11)
        let fixes = (0..<5).map { Coordinate(longitude: 2.41 + Double($0) * 1e-4, latitude: 48.9) }
        do {
            let store = try SQLiteRouteStore(path: path)
            _ = try await store.commit(.put([Route(id: .string("bus"), parts: [line]), Route(id: .string("car"), parts: [line])]))
            for fix in fixes { _ = try await store.commit(.append(key: "bus", points: [fix])) }
            await store.close()
        }
        let lineBytes = try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'bus'")
        // As schema 4 (or 3) left it: the tail rows in their table, the feed without its oldest append (pruned).
        _ = try Self.sqlite(path, """
            DROP TRIGGER route_changes_keep_tails;
            CREATE TABLE route_tails (seq INTEGER PRIMARY KEY, route_id TEXT NOT NULL, points BLOB NOT NULL,
                fixed_at REAL NOT NULL);
            INSERT INTO route_tails SELECT seq, route_id, points, changed_at FROM route_changes WHERE op = 'append';
            \(schema == "3" ? "CREATE INDEX route_tails_route ON route_tails (route_id, seq);" : "")
            DELETE FROM route_changes WHERE seq = 3;
            UPDATE routetiles_store SET value = '\(schema)' WHERE key = 'schema';
            """)
        let store = try SQLiteRouteStore(path: path)
        #expect(try Self.sqlite(path, "SELECT value FROM routetiles_store WHERE key = 'schema'") == "6")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'route_tails%'") == "0")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'route_changes_keep_tails'") == "1")
        // Folded: the row holds the five positions more, and the version of the last.
        #expect(Int(try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'bus'")) == (Int(lineBytes) ?? 0) + 5 * 16)
        #expect(try Self.sqlite(path, "SELECT version FROM routes WHERE id = 'bus'") == "7")
        let folded = try #require(try await Self.route("bus", in: store))
        #expect(folded.route.parts == [line + fixes])
        #expect(folded.version == 7)
        let last = Coordinate(longitude: 2.5, latitude: 48.95)
        _ = try await store.commit(.append(key: "bus", points: [last]))
        let stored = try #require(try await Self.route("bus", in: store))
        #expect(stored.route.parts == [line + fixes + [last]])
        #expect(try await store.loadAll().routes.map(\.route.parts) == [[line + fixes + [last]], [line]])
        await store.close()
    }

    /// A legacy tail that does not extend its route's geometry (here a tail row left on a route of points, which only
    /// another program could have written) stops the upgrade with an error naming the file and the route, and the
    /// file stays as it was: schema 4, its `route_tails` and the route's row untouched.
    @Test func anUpgradeThatCannotFoldATailLeavesTheFileAsItWas() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        do {
            let store = try SQLiteRouteStore(path: path)
            _ = try await store.commit(.put([Route(id: .string("stop"), parts: [Self.line(3, seed: 13)], kind: .point)]))
            await store.close()
        }
        let geom = try Self.sqlite(path, "SELECT hex(geom) FROM routes WHERE id = 'stop'")
        let fix = "X'" + WellKnownBinary.multiPoint([Coordinate(longitude: 2.4, latitude: 48.9)]).map { String(format: "%02X", $0) }.joined() + "'"
        _ = try Self.sqlite(path, """
            DROP TRIGGER route_changes_keep_tails;
            CREATE TABLE route_tails (seq INTEGER PRIMARY KEY, route_id TEXT NOT NULL, points BLOB NOT NULL,
                fixed_at REAL NOT NULL);
            INSERT INTO route_tails VALUES (2, 'stop', \(fix), 1790000000);
            UPDATE routetiles_store SET value = '4' WHERE key = 'schema';
            """)
        do {
            _ = try SQLiteRouteStore(path: path)
            Issue.record("the store opened")
        } catch {
            let message = "\(error)"
            #expect(message.contains(path) && message.contains("route stop"), "\(message)")
        }
        #expect(try Self.sqlite(path, "SELECT value FROM routetiles_store WHERE key = 'schema'") == "4")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_tails") == "1")
        #expect(try Self.sqlite(path, "SELECT hex(geom) FROM routes WHERE id = 'stop'") == geom)
    }

    /// Two stores on one file (two servers, or a server and a job) append to the same route in turns, and one of
    /// them folds the tail: every position of both is in the route, in order, read by either and by a third store
    /// opened afterwards. The folding store learns the other's rows from the change feed, in the fold's own write
    /// transaction, so the fold cannot pass a row it did not read.
    @Test func twoStoresAppendingToOneRouteLoseNothingWhenOneFolds() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let first = try SQLiteRouteStore(path: path)
        let second = try SQLiteRouteStore(path: path)
        var expected = Self.line(40, seed: 12)
        _ = try await first.commit(.put([Route(id: .string("taxi"), parts: [expected])]))
        // Alternating stores, 8 positions a commit, until well past the fold mark.
        for step in 0..<(AppendedTails.foldMark(key: "taxi", line: 40) / 8 + 10) {
            let fixes = (0..<8).map { Coordinate(longitude: 2.2 + Double(step * 8 + $0) * 1e-5, latitude: 48.9) }
            let store = step.isMultiple(of: 2) ? first : second
            guard case .success(.committed)? = try await store.commit(batch: [.append(key: "taxi", points: fixes)]).first else {
                Issue.record("step \(step): not committed")
                return
            }
            expected += fixes
        }
        _ = try await first.newestSequence() // after any fold the first store queued
        _ = try await second.newestSequence()
        let folded = Int(try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'taxi'")) ?? 0
        #expect(folded > 9 + 16 * 40 + 16 * AppendedTails.minimumFold / 2, "no fold happened (\(folded) bytes)")
        for store in [first, second] {
            let stored = try #require(try await Self.route("taxi", in: store))
            #expect(stored.route.parts == [expected])
        }
        await first.close()
        await second.close()
        let third = try SQLiteRouteStore(path: path)
        #expect(try await third.loadAll().routes.first { $0.key == "taxi" }?.route.parts == [expected])
        let reread = try #require(try await Self.route("taxi", in: third))
        #expect(reread.route.parts == [expected])
        await third.close()
    }

    /// A store of schema 2 (tails keyed by route) is brought to schema 5 when opened: its tails are folded into
    /// their lines, which read as they did, and appends go on.
    @Test func aSchemaTwoStoreKeepsItsTails() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("two.db")
        let line = Self.line(30, seed: 6)
        let store = try SQLiteRouteStore(path: path)
        _ = try await store.commit(.put([Route(id: .string("a"), parts: [line])]))
        await store.close()
        // The tables as schema 2 had them, with a tail of two appends (sequences 2 and 3) after the put (1).
        let fixes = [Coordinate(longitude: 2.31, latitude: 48.86), Coordinate(longitude: 2.32, latitude: 48.87)]
        func wkb(_ c: Coordinate) -> String {
            "X'" + WellKnownBinary.multiPoint([c]).map { String(format: "%02X", $0) }.joined() + "'"
        }
        _ = try Self.sqlite(path, """
            CREATE TABLE route_tails (route_id TEXT NOT NULL, seq INTEGER NOT NULL, points BLOB NOT NULL,
                fixed_at REAL NOT NULL, PRIMARY KEY (route_id, seq)) WITHOUT ROWID;
            INSERT INTO route_changes (route_id, op, base_version, points) VALUES ('a', 'append', 1, \(wkb(fixes[0]))),
                ('a', 'append', 2, \(wkb(fixes[1])));
            INSERT INTO route_tails VALUES ('a', 2, \(wkb(fixes[0])), 1790000000), ('a', 3, \(wkb(fixes[1])), 1790000001);
            UPDATE routetiles_store SET value = '2';
            """)
        let reopened = try SQLiteRouteStore(path: path)
        #expect(try Self.sqlite(path, "SELECT value FROM routetiles_store WHERE key = 'schema'") == "6")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'route_tails%'") == "0")
        let stored = try #require(try await Self.route("a", in: reopened))
        #expect(stored.route.parts == [line + fixes])
        #expect(stored.version == 3)
        #expect(stored.lastFix == 1_790_000_001)
        let more = Coordinate(longitude: 2.33, latitude: 48.88)
        _ = try await reopened.commit(.append(key: "a", points: [more]))
        #expect(try await reopened.loadAll().routes.first?.route.parts == [line + fixes + [more]])
        await reopened.close()
    }

    /// The prune of Docs/OPERATIONS.md, run by an outside program on every row, deletes the feed's rows but those
    /// still in a tail (kept by the store's trigger): every route reads the same after it, in the store that wrote
    /// them, in another store that had the file open (its ledger finds the hole and learns again), and in one opened
    /// afterwards; a reader of the feed from before the prune is told the rows are gone.
    @Test func aPruneOfTheFeedKeepsTheTails() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let store = try SQLiteRouteStore(path: path)
        let other = try SQLiteRouteStore(path: path)
        let keys = (0..<12).map { "v\($0)" }
        _ = try await store.commit(.put(keys.enumerated().map { Route(id: .string($1), parts: [Self.line(20, seed: UInt64(10 + $0))]) }))
        // Appends to every route; in the middle, two routes are replaced and one removed (their rows leave the
        // tails), and v0 grows past the fold mark.
        for round in 0..<(AppendedTails.foldMark(key: "v0", line: 20) / 8 + 2) {
            var writes: [RouteWrite] = keys.enumerated().map { i, key in
                .append(key: key, points: [Coordinate(longitude: 2.3 + Double(round) * 1e-5, latitude: 48.85 + Double(i) * 1e-4)])
            }
            writes[0] = .append(key: "v0", points: (0..<8).map { Coordinate(longitude: 2.2 + Double(round * 8 + $0) * 1e-5, latitude: 48.9) })
            if round == 20 {
                writes += [.replace(key: "v1", route: Route(parts: [Self.line(20, seed: 501)])),
                           .replace(key: "v2", route: Route(parts: [Self.line(20, seed: 502)])), .remove(key: "v3")]
            }
            _ = try await store.commit(batch: writes)
        }
        _ = try await store.newestSequence() // after the fold it queued
        // Each route's positions by key (routes compare by what they hold).
        func held(_ store: SQLiteRouteStore) async throws -> [String: [[Coordinate]]] {
            Dictionary(uniqueKeysWithValues: try await store.loadAll().routes.map { ($0.key, $0.route.parts) })
        }
        let before = try await held(store)
        let live = try Self.sqlite(path, Self.liveTailRows)
        let newest = try await store.newestSequence()
        #expect((Int(live) ?? 0) > 100)

        // Every row old enough by the documented prune: all of them, a day from now.
        _ = try Self.sqlite(path, """
            DELETE FROM route_changes WHERE changed_at < strftime('%s', 'now') + 86400
                AND seq < (SELECT max(seq) FROM route_changes);
            """)
        #expect(try Self.sqlite(path, Self.liveTailRows) == live)
        // The newest row, which the prune spares, is an append of the last round: in a tail too.
        let kept = Int(try Self.sqlite(path, "SELECT COUNT(*) FROM route_changes")) ?? 0
        #expect(kept == Int(live), "\(kept) rows kept, \(live) in tails")
        #expect(Int(newest) - kept > 100)
        await #expect(throws: RouteChangesPruned.self) { _ = try await store.changes(after: 0, limit: 100_000) }

        #expect(try await held(store) == before)
        #expect(try await held(other) == before)
        // The other store appends, after the hole: its ledger learns the routes again and its fold mark holds.
        let fix = Coordinate(longitude: 2.5, latitude: 48.95)
        guard case .success(.committed)? = try await other.commit(batch: [.append(key: "v5", points: [fix])]).first else {
            Issue.record("not committed")
            return
        }
        var expected = before
        expected["v5"]?[0].append(fix)
        for reader in [store, other] { #expect(try await held(reader) == expected) }
        let reopened = try SQLiteRouteStore(path: path)
        #expect(try await held(reopened) == expected)
        await reopened.close()
        await other.close()
        await store.close()
    }

    /// A store made before the CHECK constraints were written as comparisons (`x IN (…)`, which SQLite 3.40 evaluates
    /// with a temporary index for every row) has them rewritten in its schema when a server opens it: the same
    /// rule, still enforced on other programs' writes, the file intact, the routes as they were. A job that only
    /// reads (`create: false`) leaves the schema alone.
    @Test func membershipChecksAreRewrittenAsComparisons() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("checks.db")
        let store = try SQLiteRouteStore(path: path)
        let route = Route(id: .string("a"), parts: [Self.line(30, seed: 6)])
        _ = try await store.commit(.put([route]))
        _ = try await store.commit(.append(key: "a", points: [Coordinate(longitude: 2.31, latitude: 48.86)]))
        await store.close()
        let schemaText = "SELECT group_concat(sql, ' ') FROM sqlite_master WHERE name IN ('routes', 'route_changes')"
        let made = try Self.sqlite(path, schemaText)
        #expect(made.contains("op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'append'"))
        #expect(made.contains("kind = 'line' OR kind = 'point'"))
        #expect(!made.contains(" IN ("))

        // Back to the text of a store made before.
        var back = "PRAGMA writable_schema = ON;"
        for (old, new) in SQLiteRouteStore.membershipChecks {
            back += " UPDATE sqlite_master SET sql = replace(sql, '\(new.replacingOccurrences(of: "'", with: "''"))', "
                + "'\(old.replacingOccurrences(of: "'", with: "''"))') WHERE type = 'table';"
        }
        let version = try Self.sqlite(path, "PRAGMA schema_version")
        back += " PRAGMA schema_version = \((Int(version) ?? 0) + 1); PRAGMA writable_schema = OFF;"
        _ = try Self.sqlite(path, back)
        let before = try Self.sqlite(path, schemaText)
        #expect(before.contains("op IN ('insert', 'update', 'delete', 'append')"))
        #expect(before.contains("kind IN ('line', 'point')"))

        let reader = try SQLiteRouteStore(path: path, create: false)
        await reader.close()
        #expect(try Self.sqlite(path, schemaText) == before)

        let reopened = try SQLiteRouteStore(path: path)
        #expect(try Self.sqlite(path, schemaText) == made)
        #expect(try Self.sqlite(path, "PRAGMA integrity_check") == "ok")
        let stored = try #require(try await Self.route("a", in: reopened))
        #expect(stored.route.parts == [route.parts[0] + [Coordinate(longitude: 2.31, latitude: 48.86)]])
        _ = try await reopened.commit(.append(key: "a", points: [Coordinate(longitude: 2.32, latitude: 48.87)]))
        await reopened.close()
        // The rules still hold for other programs.
        let badOp = try ExternalTool.run("/usr/bin/sqlite3", [path, "INSERT INTO route_changes (route_id, op) VALUES ('a', 'bogus')"])
        #expect(badOp.status != 0 && badOp.stderr.contains("CHECK constraint failed"))
        let badKind = try ExternalTool.run("/usr/bin/sqlite3", [path, "UPDATE routes SET kind = 'area' WHERE id = 'a'"])
        #expect(badKind.status != 0 && badKind.stderr.contains("CHECK constraint failed"))
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_changes WHERE op = 'append'") == "2")
    }

    /// A store of schema 1 (without `routes.fixed_at` and `route_imports`) is brought to schema 6 when opened, its
    /// routes as they were; a newer schema is refused.
    @Test func aSchemaOneStoreIsBroughtUpToDate() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        let store = try SQLiteRouteStore(path: path)
        let route = Route(id: .string("a"), parts: [Self.line(30, seed: 5)])
        _ = try await store.commit(.put([route]))
        await store.close()
        _ = try Self.sqlite(path, "DROP TABLE route_imports; UPDATE routetiles_store SET value = '1'")

        let reopened = try SQLiteRouteStore(path: path)
        #expect(try Self.sqlite(path, "SELECT value FROM routetiles_store WHERE key = 'schema'") == "6")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('route_imports', 'route_changes_keep_tails')") == "2")
        _ = try await reopened.commit(.append(key: "a", points: [Coordinate(longitude: 2.31, latitude: 48.86)]))
        let stored = try #require(try await Self.route("a", in: reopened))
        #expect(stored.route.parts == [route.parts[0] + [Coordinate(longitude: 2.31, latitude: 48.86)]])
        await reopened.close()

        _ = try Self.sqlite(path, "UPDATE routetiles_store SET value = '7'")
        #expect(throws: StoreError.self) { try SQLiteRouteStore(path: path) }
    }

    /// A store of schema 5 (without `routes.trimmed`) gains the column when opened, its routes read with 0, and
    /// keeps what a trim by time writes in it.
    @Test func aSchemaFiveStoreGainsTheTrimmedColumn() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("five.db")
        let store = try SQLiteRouteStore(path: path)
        let times = (0..<30).map { Int64(1_795_788_300_000 + $0 * 5_000) }
        let route = Route(id: .string("a"), parts: [Self.line(30, seed: 6)], times: times)
        _ = try await store.commit(.put([route]))
        await store.close()
        _ = try Self.sqlite(path, "ALTER TABLE routes DROP COLUMN trimmed; UPDATE routetiles_store SET value = '5'")

        let reopened = try SQLiteRouteStore(path: path)
        #expect(try Self.sqlite(path, "SELECT value FROM routetiles_store WHERE key = 'schema'") == "6")
        #expect(try Self.sqlite(path, "SELECT trimmed FROM routes WHERE id = 'a'") == "0")
        #expect(try #require(try await Self.route("a", in: reopened)).route.times == times)
        _ = try await reopened.commit(.trimOlder(key: "a", than: times[11]))
        #expect(try Self.sqlite(path, "SELECT trimmed FROM routes WHERE id = 'a'") == "11")
        await reopened.close()
        let again = try SQLiteRouteStore(path: path)
        let trimmed = try #require(try await Self.route("a", in: again))
        #expect(trimmed.route.trimmed == 11 && trimmed.route.times == Array(times.dropFirst(11)))
        await again.close()
    }
}

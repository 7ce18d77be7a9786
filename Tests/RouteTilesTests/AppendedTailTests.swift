import Foundation
@testable import RouteTiles
import Testing

/// Appends to a SQLite store go to the route's tail, not its row: an append writes what it adds whatever the length
/// of the route, the route reads back whole (tail included) with its version, and the tail is folded into the row
/// once it is long enough, without a change to the route.
@Suite struct AppendedTailTests {
    static func line(_ count: Int, seed: UInt64) -> [Coordinate] {
        var rng = SeededGenerator(seed: seed)
        return Sample.track(count: count, lon: 2.3, lat: 48.85, step: 0.0003, using: &rng)
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
        // The row was not written again: its line is as stored, and the 40 appends are 40 tail rows.
        #expect(try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'long'") == rowBytes)
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_tails WHERE route_id = 'long'") == "40")
        guard case let .route(stored)? = try await store.rows(["long"])["long"] else {
            Issue.record("no route")
            return
        }
        #expect(stored.route.parts == [expected])
        #expect(stored.version == version)
        let all = try await store.loadAll()
        #expect(all.routes.first { $0.key == "long" }?.route.parts == [expected])
        #expect(all.routes.first { $0.key == "long" }?.version == version)

        // A replacement empties the tail; a removal too.
        _ = try await store.commit(.replace(key: "long", route: Route(parts: [Self.line(10, seed: 3)])))
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_tails") == "0")
        _ = try await store.commit(.append(key: "short", points: [Coordinate(longitude: 2.3, latitude: 48.8)]))
        _ = try await store.commit(.remove(key: "short"))
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_tails") == "0")
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
        for step in 0..<(AppendedTails.minimumFold / 8 + 3) {
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
        let tailRows = Int(try Self.sqlite(path, "SELECT COUNT(*) FROM route_tails")) ?? -1
        #expect(tailRows < AppendedTails.minimumFold / 4, "\(tailRows) tail rows: no fold")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM route_changes") == String(1 + versions.count))
        guard case let .route(stored)? = try await store.rows(["van"])["van"] else {
            Issue.record("no route")
            return
        }
        #expect(stored.route.parts == [expected])
        #expect(stored.version == versions.last)
        // The folded row holds the line it folded: read by SQLite alone, its size is the WKB of more positions.
        let bytes = Int(try Self.sqlite(path, "SELECT length(geom) FROM routes WHERE id = 'van'")) ?? 0
        #expect(bytes > 9 + 16 * (600 + AppendedTails.minimumFold - 1))
        await store.close()
    }

    /// A store of schema 1 (before `route_tails`) is brought to schema 2 when opened, its routes as they were.
    @Test func aSchemaOneStoreGainsTheTailTable() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        let store = try SQLiteRouteStore(path: path)
        let route = Route(id: .string("a"), parts: [Self.line(30, seed: 5)])
        _ = try await store.commit(.put([route]))
        await store.close()
        _ = try Self.sqlite(path, "DROP TABLE route_tails; DROP TABLE route_imports; UPDATE routetiles_store SET value = '1'")

        let reopened = try SQLiteRouteStore(path: path)
        #expect(try Self.sqlite(path, "SELECT value FROM routetiles_store WHERE key = 'schema'") == "2")
        #expect(try Self.sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('route_tails', 'route_imports')") == "2")
        _ = try await reopened.commit(.append(key: "a", points: [Coordinate(longitude: 2.31, latitude: 48.86)]))
        guard case let .route(stored)? = try await reopened.rows(["a"])["a"] else {
            Issue.record("no route")
            return
        }
        #expect(stored.route.parts == [route.parts[0] + [Coordinate(longitude: 2.31, latitude: 48.86)]])
        await reopened.close()

        _ = try Self.sqlite(path, "UPDATE routetiles_store SET value = '3'")
        #expect(throws: StoreError.self) { try SQLiteRouteStore(path: path) }
    }
}

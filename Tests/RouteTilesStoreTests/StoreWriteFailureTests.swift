import Foundation
import RouteTiles
import RouteTilesPostgres
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// A write that fails inside a batch (refused by a trigger made with SQL) is undone alone where its store undoes it
/// alone (`RouteStoreTransaction.beginWrite`), and the writes around it commit. SQLite keeps a savepoint for every
/// write but an append, even alone in its batch, and answers with SQLite's error; PostgreSQL keeps one only for a
/// write of several, and a write alone fails its transaction.
@Suite struct StoreWriteFailureTests {
    static let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]
    static let fix = [Coordinate(longitude: 2.32, latitude: 48.82)]

    /// Appends around a put the trigger refuses, and a put it lets through.
    static let batch: [RouteWrite] = [
        .append(key: "line", points: fix), .put([Route(id: .string("bad"), parts: [line])]),
        .append(key: "line", points: fix), .put([Route(id: .string("good"), parts: [line])]),
    ]

    /// What each write's answer was, and the message of each failure.
    static func outcomes(_ results: [Result<RouteWriteResult, any Error>]) -> [String] {
        results.map { result in
            switch result {
            case .success(.committed): return "committed"
            case let .success(other): return "\(other)"
            case let .failure(error): return "failed: \(error)"
            }
        }
    }

    /// The routes after the batch: the line with both fixes, the good route, not the bad one.
    static func expectStored(_ store: any RouteStore) async throws {
        let rows = try await store.rows(["line", "good", "bad"])
        guard case let .route(stored)? = rows["line"] else { Issue.record("no line"); return }
        #expect(stored.route.parts == [line + fix + fix])
        #expect(rows["good"] != nil)
        #expect(rows["bad"] == nil)
    }

    @Test func sqliteUndoesAFailedWriteAloneEvenInABatchOfOne() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let store = try SQLiteRouteStore(path: path)
        _ = try await store.commit(.put([Route(id: .string("line"), parts: [Self.line])]))
        _ = try AppendedTailTests.sqlite(path, """
            CREATE TRIGGER refuse BEFORE INSERT ON routes WHEN new.id = 'bad' BEGIN SELECT RAISE(ABORT, 'bad is refused'); END;
            """)
        let outcomes = Self.outcomes(try await store.commit(batch: Self.batch))
        #expect(outcomes.count == 4)
        #expect(outcomes[0] == "committed" && outcomes[2] == "committed" && outcomes[3] == "committed")
        #expect(outcomes[1].hasPrefix("failed") && outcomes[1].contains("bad is refused"))
        let alone = Self.outcomes(try await store.commit(batch: [.put([Route(id: .string("bad"), parts: [Self.line])])]))
        #expect(alone.count == 1 && alone[0].contains("bad is refused"))
        try await Self.expectStored(store)
        // The feed holds the writes that committed, numbered without a hole.
        #expect(try AppendedTailTests.sqlite(path, "SELECT group_concat(op, ' ') FROM (SELECT op FROM route_changes ORDER BY seq)")
                == "insert append append insert")
        await store.close()
    }

    @Test(.enabled(if: ExternalTool.required(PostgresCluster.installed)), .heavy)
    func postgresUndoesAFailedWriteAloneOnlyAmongSeveral() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let database = PostgresCluster.database(of: url)
        let store = try await PostgresRouteStore.open(url: url, create: true, timeout: .seconds(60))
        _ = try await store.commit(.put([Route(id: .string("line"), parts: [Self.line])]))
        _ = try await cluster.psql(database, """
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'bad is refused'; END $$;
            CREATE TRIGGER refuse BEFORE INSERT ON routes FOR EACH ROW WHEN (new.id = 'bad') EXECUTE FUNCTION refuse();
            """)
        let outcomes = Self.outcomes(try await store.commit(batch: Self.batch))
        #expect(outcomes.count == 4)
        #expect(outcomes[0] == "committed" && outcomes[2] == "committed" && outcomes[3] == "committed")
        #expect(outcomes[1].hasPrefix("failed") && outcomes[1].contains("bad is refused"))
        await #expect(throws: RouteStoreError.self) {
            _ = try await store.commit(batch: [.put([Route(id: .string("bad"), parts: [Self.line])])])
        }
        try await Self.expectStored(store)
        await store.close()
    }
}

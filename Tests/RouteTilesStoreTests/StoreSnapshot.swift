import RouteTiles
import RouteTilesPostgres

/// What a store holds, read through a store opened for that alone (never creating one) and closed again: how the
/// crash and restart tests look at what a `routetiles serve` process left in SQLite or PostgreSQL.
enum StoreSnapshot {
    /// The routes of the SQLite store file at `path`.
    static func sqlite(_ path: String) async throws -> RouteStoreSnapshot {
        try await loadAndClose(SQLiteRouteStore(path: path, create: false))
    }

    /// The routes of the PostgreSQL store at `url`.
    static func postgres(_ url: String) async throws -> RouteStoreSnapshot {
        try await loadAndClose(PostgresRouteStore.open(url: url, create: false))
    }

    private static func loadAndClose(_ store: some RouteStore) async throws -> RouteStoreSnapshot {
        let snapshot = try await store.loadAll()
        await store.close()
        return snapshot
    }
}

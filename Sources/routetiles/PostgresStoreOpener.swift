import RouteTiles

/// Opens a PostgreSQL route store.
enum PostgresStoreOpener {
    static func open(url: String, create: Bool, schema: String?, table: String?) async throws -> any RouteStore {
        throw RouteStoreError(store: "postgres", message: "not built yet")
    }
}

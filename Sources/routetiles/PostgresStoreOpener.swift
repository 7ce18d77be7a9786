import RouteTiles
import RouteTilesPostgres

/// Opens a PostgreSQL route store.
enum PostgresStoreOpener {
    static func open(url: String, create: Bool, schema: String?, table: String?) async throws -> any RouteStore {
        try await PostgresRouteStore.open(url: url, schema: schema, table: table, create: create)
    }
}

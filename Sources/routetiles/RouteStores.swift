import Foundation
import RouteTiles

/// Opens the route store a `--store` value or an input names.
enum RouteStores {
    /// - Parameter create: make a SQLite file and its tables when missing (serve, load); false for inputs.
    static func open(_ text: String, create: Bool, schema: String? = nil, table: String? = nil) async throws
        -> any RouteStore
    {
        switch try RouteStoreLocation(text) {
        case .memory:
            return MemoryRouteStore()
        case let .sqlite(path):
            return try SQLiteRouteStore(path: path, create: create)
        case let .postgres(url):
            return try await PostgresStoreOpener.open(url: url, create: create, schema: schema, table: table)
        }
    }

    /// Whether an input names a route store: a PostgreSQL URL, `sqlite:PATH`, or a SQLite file (a route store, or
    /// an error that says what it holds instead).
    static func isStore(_ input: String) -> Bool {
        RouteStoreLocation.isStore(input, fileStartsWithSQLite: startsWithSQLiteHeader(input))
    }

    private static func startsWithSQLiteHeader(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return head == Data("SQLite format 3\0".utf8)
    }
}

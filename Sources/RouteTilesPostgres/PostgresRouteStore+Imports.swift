import PostgresNIO
import RouteTiles

/// The PostgreSQL store's imports from files: `<table>_imports` remembers them, and `RouteWriteRule` applies them
/// through `PostgresRouteTransaction`.
extension PostgresRouteStore {
    package func importRecords() async throws -> [String: RouteImportRecord] {
        try await call("cannot read the imports") { [self] in
            let rows = try await client.query(
                PostgresQuery(unsafeSQL: "SELECT id, content_hash, version FROM \(schema.imports)"), logger: logger)
            var records: [String: RouteImportRecord] = [:]
            for try await (key, hash, version) in rows.decode((String, String, Int64).self) {
                records[key] = RouteImportRecord(contentHash: hash, version: version)
            }
            return records
        }
    }

    package func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        guard !entries.isEmpty else { return RouteImportResult() }
        return try await call("the import was not committed") { [self] in
            try await writeTransaction { connection in
                var transaction = PostgresRouteTransaction(store: self, connection: connection)
                return try await RouteWriteRule.importRoutes(entries, in: &transaction)
            }
        }
    }
}

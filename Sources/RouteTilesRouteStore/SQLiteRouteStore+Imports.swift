import RouteTilesModel

/// The SQLite store's imports from files: `route_imports` remembers them, and `RouteWriteRule` applies them through
/// `SQLiteRouteTransaction` (`SQLiteRouteConnection.importRoutes`).
extension SQLiteRouteStore {
    /// What the `route_imports` table remembers.
    public func importRecords() async throws -> [String: RouteImportRecord] {
        try await connection.withDatabase { db in
            let s = try db.prepare("SELECT id, content_hash, version FROM route_imports")
            var records: [String: RouteImportRecord] = [:]
            while try s.step() {
                records[s.text(0) ?? ""] = RouteImportRecord(contentHash: s.text(1) ?? "", version: s.int64(2))
            }
            return records
        }
    }

    /// Applies an import in one transaction; an entry whose route moved on since the importer looked is skipped.
    public func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        try await connection.importRoutes(entries)
    }
}

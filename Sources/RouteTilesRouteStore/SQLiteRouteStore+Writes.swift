import RouteTilesModel

/// The SQLite store's writes: applied by `RouteWriteRule` through `SQLiteRouteTransaction`, on the store's queue
/// (`SQLiteRouteConnection.commit(batch:)`).
extension SQLiteRouteStore {
    /// Commits one write in a transaction and returns once it is in the file.
    public func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        try await commit(batch: [write])[0].get()
    }

    /// Commits the writes in one transaction, each but an append in a savepoint of its own, and returns once it is
    /// in the file. Routes whose tail grew long enough are folded afterwards, in a transaction of their own, before
    /// the next call runs.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        try await connection.commit(batch: writes)
    }
}

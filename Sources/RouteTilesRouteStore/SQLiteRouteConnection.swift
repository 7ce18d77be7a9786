import Dispatch
import RouteTilesModel
import RouteTilesSQLite

/// The SQLite store's open file and `TailLedger`, isolated to a queue of the store's own: SQLite blocks (a commit
/// waits for its fsync), so its calls run there, off Swift's concurrency pool, one at a time.
///
/// A write transaction runs `RouteWriteRule` on the queue: the rule's requirements are `nonisolated(nonsending)` and
/// `SQLiteRouteTransaction`'s witnesses synchronous, so its `await`s neither leave the queue nor suspend, and no other
/// call of the actor runs in the middle of a transaction.
actor SQLiteRouteConnection {
    private let executor = DispatchQueueExecutor(label: "routetiles.sqlite-route-store")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The store's name, for errors.
    private let store: String
    /// Nil once closed.
    private var db: SQLiteDatabase?
    /// When to fold each route's tail into its line, and which feed rows make it.
    private var ledger: TailLedger

    init(_ db: SQLiteDatabase, ledger: TailLedger, store: String) {
        self.db = db
        self.ledger = ledger
        self.store = store
    }

    private func open() throws -> SQLiteDatabase {
        guard let db else { throw RouteStoreError(store: store, message: "the store is closed") }
        return db
    }

    /// Runs `body` with the database.
    func withDatabase<T: Sendable>(_ body: @Sendable (SQLiteDatabase) throws -> T) throws -> T {
        try body(try open())
    }

    /// Runs `body` in a transaction with the ledger brought up to date first (`sync`); what the ledger learnt or
    /// was told is undone if the transaction does not commit.
    func withLedger<T: Sendable>(writing: Bool, _ body: @Sendable (SQLiteDatabase, inout TailLedger) throws -> T) throws -> T {
        let db = try open()
        let start = ledger.mark
        do {
            let result = try db.transaction(writing: writing) {
                try SQLiteRouteStore.sync(db, &ledger)
                return try body(db, &ledger)
            }
            ledger.keep()
            return result
        } catch {
            ledger.rollBack(to: start)
            throw error
        }
    }

    /// Commits the writes in one transaction (`RouteWriteRule.commit`). Routes whose tail grew long enough are
    /// folded afterwards, in a transaction of their own, queued behind this call: before any call that comes later.
    func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        let (results, due) = try await writeTransaction { transaction in
            (try await RouteWriteRule.commit(batch: writes, in: &transaction), transaction.due)
        }
        if !due.isEmpty {
            executor.queue.async { [self] in
                assumeIsolated { connection in
                    // A fold that fails leaves the tails as they are: the routes are whole either way.
                    _ = try? connection.withLedger(writing: true) { db, ledger in
                        try SQLiteRouteStore.fold(due.uniqued(), in: db, ledger: &ledger)
                    }
                }
            }
        }
        return results
    }

    /// Applies an import in one transaction (`RouteWriteRule.importRoutes`).
    func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        try await writeTransaction { transaction in try await RouteWriteRule.importRoutes(entries, in: &transaction) }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`) with the ledger brought up to date first and lent to
    /// the transaction; what the ledger was told is undone if the transaction does not commit.
    private func writeTransaction<T>(
        _ body: nonisolated(nonsending) (inout SQLiteRouteTransaction) async throws -> T
    ) async throws -> T {
        let db = try open()
        // The ledger is moved into the transaction and back, not copied: it holds every route's tail.
        var transaction = try SQLiteRouteTransaction(db, ledger: TailLedger())
        swap(&transaction.ledger, &ledger)
        defer { swap(&transaction.ledger, &ledger) }
        let start = transaction.ledger.mark
        try db.execute("BEGIN IMMEDIATE")
        do {
            try SQLiteRouteStore.sync(db, &transaction.ledger)
            let result = try await body(&transaction)
            try db.execute("COMMIT")
            transaction.ledger.keep()
            return result
        } catch {
            try? db.execute("ROLLBACK")
            transaction.ledger.rollBack(to: start)
            throw error
        }
    }

    /// Closes the database; later calls fail.
    func close() {
        db?.close()
        db = nil
    }
}

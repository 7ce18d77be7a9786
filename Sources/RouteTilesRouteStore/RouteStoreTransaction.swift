import RouteTilesModel

/// The primitives of one write transaction of a route store, with which `RouteWriteRule` applies writes and
/// imports: the rule decides what a write does, the store how it is read and written. A store makes one for each
/// transaction, once it holds its writers' lock and its ledger is up to date, and uses it from that transaction's
/// task only.
///
/// Every requirement is `nonisolated(nonsending)`: it runs on its caller's executor. A store that blocks (SQLite, on
/// its queue) or locks (memory) gives synchronous witnesses, which then run inline: the rule's `await`s on them
/// neither hop nor suspend.
package protocol RouteStoreTransaction {
    /// Where one write started, for `undoWrite`: a ledger mark, and whether a savepoint is open.
    associatedtype Mark

    // MARK: Reading

    /// The version of the route stored under `key` (its tail's included), nil when no row is stored: what an import
    /// entry's expected version is compared with.
    nonisolated(nonsending) mutating func version(of key: String) async throws -> Int64?

    /// The row stored under `key` as it is now, with its tail (what a trim cuts), nil when there is none.
    nonisolated(nonsending) mutating func read(_ key: String) async throws -> StoredRow?

    /// Whether an append to `key` may be written: from the ledger where it knows the route, so that an append reads
    /// no row.
    nonisolated(nonsending) mutating func appendTarget(_ key: String) async throws -> AppendTarget

    /// Called once per batch, before its first write. By default nothing (PostgreSQL reads, in one query, the routes
    /// its ledger lacks among those the batch appends to).
    nonisolated(nonsending) mutating func prepare(forBatch writes: [RouteWrite]) async throws

    /// Where numbering the routes without an id starts (`RouteStoreImport.numbered`); 0 will do when every route
    /// has an id.
    nonisolated(nonsending) mutating func nextFreeNumber(after routes: [Route]) async throws -> UInt64

    // MARK: Writing

    /// Writes `route` whole under `key` with its change (an insert or an update), and starts its tail again.
    /// `lastFix` is nil for a put, the route's last fix for a trim.
    nonisolated(nonsending) mutating func upsert(_ route: Route, key: String, lastFix: Double?) async throws -> Upserted

    /// Removes the route stored under `key` with its change; the change's sequence, or nil when no row is stored.
    nonisolated(nonsending) mutating func delete(_ key: String) async throws -> Int64?

    /// Adds the change of an append to `key`, a line (`appendTarget`), with the points' `times` when the route has
    /// times (each after its last). The store picks its time and its base (the route's version, earlier appends of
    /// this transaction included) and updates its ledger. Returns the change when it is written now, nil when it is
    /// queued for `flushAppends`.
    nonisolated(nonsending) mutating func append(_ points: [Coordinate], times: [Int64]?, to key: String) async throws
        -> RouteChange?

    /// Writes the queued appends together and returns their changes, in the order they were queued. By default
    /// nothing (a store that never queues).
    nonisolated(nonsending) mutating func flushAppends() async throws -> [RouteChange]

    // MARK: Imports from files

    /// Remembers that `key` holds the content `contentHash` of an import, at `version`.
    nonisolated(nonsending) mutating func recordImport(_ key: String, contentHash: String, version: Int64) async throws

    /// Forgets the import of `key`.
    nonisolated(nonsending) mutating func forgetImport(_ key: String) async throws

    /// Called after an import's last entry. By default nothing (PostgreSQL writes the records it gathered).
    nonisolated(nonsending) mutating func finishImport() async throws

    // MARK: One write's failure

    /// Opens what undoes one write of a batch of `count` alone, should it fail; nil when the store does not undo it
    /// alone (its failure then fails the transaction, or it cannot fail).
    nonisolated(nonsending) mutating func beginWrite(_ scope: WriteScope, inBatchOf count: Int) async throws -> Mark?

    /// The write begun at `mark` succeeded.
    nonisolated(nonsending) mutating func endWrite(_ mark: Mark) async throws

    /// Undoes the write begun at `mark`, which failed with `error`; returns the error its writer is answered with.
    nonisolated(nonsending) mutating func undoWrite(_ mark: Mark, after error: any Error) async throws -> any Error
}

extension RouteStoreTransaction {
    nonisolated(nonsending) package mutating func prepare(forBatch writes: [RouteWrite]) async throws {}

    nonisolated(nonsending) package mutating func flushAppends() async throws -> [RouteChange] { [] }

    nonisolated(nonsending) package mutating func finishImport() async throws {}
}

/// What an append finds under its key.
package enum AppendTarget: Sendable {
    /// No route: the append is refused (`notFound`).
    case missing
    /// A route of points, which cannot be extended (`notALine`).
    case notALine
    /// A line, which the append extends; `hasTimes` when the route keeps a time on every position, and then
    /// `lastTime`, the time of its last position (the ledger's, with its own appends of this transaction).
    case line(hasTimes: Bool, lastTime: Int64?)
}

/// A route as `RouteStoreTransaction.upsert` wrote it.
package struct Upserted: Sendable {
    /// Its version: the sequence of its change.
    package var version: Int64
    /// The sequence of the change that created it (kept when it replaced a stored route).
    package var created: Int64
    /// Whether no route was stored under its key before.
    package var inserted: Bool

    package init(version: Int64, created: Int64, inserted: Bool) {
        self.version = version
        self.created = created
        self.inserted = inserted
    }
}

/// How much one write changes, which decides what undoes it alone.
package enum WriteScope: Sendable {
    /// An append: one feed row, one statement, which a database undoes by itself when it fails.
    case append
    /// Any other write: several statements (a savepoint undoes them).
    case whole
}
